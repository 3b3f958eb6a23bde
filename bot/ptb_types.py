"""PTB's generic application types as jifen uses them (it sets none of their six parameters)."""

from __future__ import annotations

from typing import Any, TypeAlias

from telegram.ext import Application, ApplicationBuilder

AnyApplication: TypeAlias = Application[Any, Any, Any, Any, Any, Any]
AnyBuilder: TypeAlias = ApplicationBuilder[Any, Any, Any, Any, Any, Any]
