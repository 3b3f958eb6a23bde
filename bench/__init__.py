"""Performance benchmark of jifen (`python -m bench [--quick]`); not part of the test suite.

Prints one JSON object with medians of several repetitions, all measured in one run:
``hands_per_s``, ``overhead_vs_echo``, ``standings_ratio_100k``, ``scoring_per_s``, ``rss_mb``,
``start_s`` and ``pg_hands_per_s``. See bench/RESULTS.md for the method and the figures.
"""
