"""The registry: every variant found by its name (after python-chess's variant.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from engine.klondike import Klondike, KlondikeDraw3
from engine.rules import Rules
from engine.spider import Spider1, Spider2, Spider4
from engine.yukon import Alaska, Russian, Yukon

VARIANTS: Final[dict[str, type[Rules]]] = {
    cls.name: cls
    for cls in (Klondike, KlondikeDraw3, Spider1, Spider2, Spider4, Yukon, Russian, Alaska)
}


def rules_for(variant: str, options: Mapping[str, object] | None = None) -> Rules:
    """The rules of ``variant`` with ``options``.

    Raises:
        ValueError: the variant is unknown or an option is bad.
    """
    try:
        cls = VARIANTS[variant]
    except KeyError:
        raise ValueError(
            f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}"
        ) from None
    return cls(options)
