"""Reliability and security: bad input, crashes, forged buttons, floods, backups, migrations."""
