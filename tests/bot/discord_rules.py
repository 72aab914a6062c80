"""Discord's limits on a message, checked on every message and edit the test fakes see.

Discord refuses a whole message (HTTP 400, e.g. ``COMPONENT_CUSTOM_ID_DUPLICATED``)
when one part breaks a limit: the player sees "This interaction failed" and the tap
does nothing. discord.py checks only some of these limits itself (row widths, while
building a view) and none of the others, so the fakes (tests/bot/discord_fakes.py)
hold every message the bot sends or edits to all of them. The limits are Discord's
documented ones for message content and message components (action rows, buttons,
string selects), and for Components V2 messages (boards): no content and no embeds
beside them, at most 40 components counted with every nested one, at most 4,000 units
of text in all, custom ids unique through the whole tree, sections of one to three text
displays with a button or thumbnail beside them, containers holding only rows, texts,
sections, separators and media. The bot sends no embeds; the fakes take none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Final

CONTENT_UNITS: Final = 2000  # message content, in UTF-16 code units
ROWS: Final = 5  # action rows per message
BUTTONS_PER_ROW: Final = 5  # a select menu takes a row by itself
CUSTOM_ID: Final = 100
BUTTON_LABEL: Final = 80
SELECT_OPTIONS: Final = 25
OPTION_TEXT: Final = 100  # an option's label, value and description each
PLACEHOLDER: Final = 150

ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3
SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER = (
    9,
    10,
    11,
    12,
    13,
    14,
    17,
)
LAYOUT_COMPONENTS: Final = 40  # in a Components V2 message, nested ones counted
LAYOUT_TEXT: Final = 4000  # the text of all its text displays
IN_CONTAINER: Final = {ACTION_ROW, TEXT_DISPLAY, SECTION, MEDIA_GALLERY, SEPARATOR, FILE}
TOP_LEVEL: Final = IN_CONTAINER | {CONTAINER}
LINK_STYLE = 5  # a link button carries a URL instead of a custom id


def utf16_units(content: str) -> int:
    """Length as Discord counts it: UTF-16 code units (an emoji beyond the BMP is two)."""
    return len(content.encode("utf-16-le")) // 2


def is_layout(view: Any) -> bool:
    """Whether ``view`` makes a Components V2 message (discord.py then sets the flag)."""
    return view is not None and bool(getattr(view, "has_components_v2", lambda: False)())


def rule_breaks(content: str | None, view: Any) -> list[str]:
    """Every limit the message (its content and the components of ``view``) breaks,
    as short descriptions; empty when Discord would take it."""
    if is_layout(view):
        return layout_breaks(content, view)
    breaks: list[str] = []
    if content is not None and utf16_units(content) > CONTENT_UNITS:
        breaks.append(f"content of {utf16_units(content)} UTF-16 units")
    rows: list[Mapping[str, Any]] = view.to_components() if view is not None else []
    if len(rows) > ROWS:
        breaks.append(f"{len(rows)} action rows")
    ids: list[str] = []
    for number, row in enumerate(rows):
        if row.get("type") != ACTION_ROW:
            breaks.append(f"row {number} is not an action row")
            continue
        items = row.get("components") or []
        kinds = Counter(item.get("type") for item in items)
        if not items:
            breaks.append(f"row {number} is empty")
        elif kinds[STRING_SELECT] and len(items) > 1:
            breaks.append(f"row {number} holds a select beside {len(items) - 1} other item(s)")
        elif len(items) > BUTTONS_PER_ROW:
            breaks.append(f"row {number} holds {len(items)} buttons")
        for item in items:
            breaks += _item_breaks(item, ids)
    for custom_id, count in Counter(ids).items():
        if count > 1:
            breaks.append(f"custom_id {custom_id!r} used {count} times")
    return breaks


def _item_breaks(item: Mapping[str, Any], ids: list[str]) -> list[str]:
    breaks = []
    custom_id = item.get("custom_id")
    if custom_id is not None:
        ids.append(custom_id)
        if not 1 <= len(custom_id) <= CUSTOM_ID:
            breaks.append(f"custom_id of {len(custom_id)} characters: {custom_id!r}")
    if item.get("type") == BUTTON:
        if custom_id is None and item.get("style") != LINK_STYLE:
            breaks.append("a button without a custom_id")
        label = item.get("label")
        if not label and not item.get("emoji"):
            breaks.append(f"button {custom_id!r} has neither label nor emoji")
        if label is not None and len(label) > BUTTON_LABEL:
            breaks.append(f"button label of {len(label)} characters: {label!r}")
    elif item.get("type") == STRING_SELECT:
        if custom_id is None:
            breaks.append("a select without a custom_id")
        options = item.get("options") or []
        if not 1 <= len(options) <= SELECT_OPTIONS:
            breaks.append(f"select {custom_id!r} with {len(options)} options")
        values = [option.get("value", "") for option in options]
        if len(set(values)) != len(values):
            breaks.append(f"select {custom_id!r} repeats an option value")
        for option in options:
            for key in ("label", "value", "description"):
                field = option.get(key)
                if field is not None and not 1 <= len(field) <= OPTION_TEXT:
                    breaks.append(f"select option {key} of {len(field)} characters")
        defaults = sum(bool(option.get("default")) for option in options)
        if defaults > int(item.get("max_values", 1)):
            breaks.append(f"select {custom_id!r} with {defaults} default options")
        placeholder = item.get("placeholder")
        if placeholder is not None and len(placeholder) > PLACEHOLDER:
            breaks.append(f"placeholder of {len(placeholder)} characters")
    else:
        breaks.append(f"a component of type {item.get('type')}")
    return breaks


def layout_breaks(content: str | None, view: Any) -> list[str]:
    """Every limit a Components V2 message breaks (see the module's docstring)."""
    breaks: list[str] = []
    if content:
        breaks.append("content beside Components V2")
    top: list[Mapping[str, Any]] = view.to_components()
    ids: list[str] = []
    texts: list[str] = []
    count = 0

    def walk(component: Mapping[str, Any], allowed: set[int], where: str) -> None:
        nonlocal count
        count += 1
        kind = component.get("type")
        if kind not in allowed:
            breaks.append(f"a component of type {kind} in {where}")
            return
        if kind == TEXT_DISPLAY:
            shown = component.get("content") or ""
            if not shown:
                breaks.append("an empty text display")
            texts.append(shown)
        elif kind == CONTAINER:
            inner = component.get("components") or []
            if not inner:
                breaks.append("an empty container")
            for child in inner:
                walk(child, IN_CONTAINER, "a container")
        elif kind == SECTION:
            inner = component.get("components") or []
            if not 1 <= len(inner) <= 3:
                breaks.append(f"a section of {len(inner)} text displays")
            for child in inner:
                walk(child, {TEXT_DISPLAY}, "a section")
            accessory = component.get("accessory")
            if accessory is None:
                breaks.append("a section without accessory")
            else:
                walk(accessory, {BUTTON, THUMBNAIL}, "a section's accessory")
                if accessory.get("type") == BUTTON:
                    breaks.extend(_item_breaks(accessory, ids))
        elif kind == ACTION_ROW:
            items = component.get("components") or []
            count += len(items)
            kinds = Counter(item.get("type") for item in items)
            if not items:
                breaks.append("an empty action row")
            elif kinds[STRING_SELECT] and len(items) > 1:
                breaks.append("a select beside other items in a row")
            elif len(items) > BUTTONS_PER_ROW:
                breaks.append(f"a row of {len(items)} buttons")
            for item in items:
                breaks.extend(_item_breaks(item, ids))

    for component in top:
        walk(component, TOP_LEVEL, "the message")
    if count > LAYOUT_COMPONENTS:
        breaks.append(f"{count} components (nested counted)")
    length = sum(utf16_units(shown) for shown in texts)
    if length > LAYOUT_TEXT:
        breaks.append(f"{length} units of text")
    for custom_id, times in Counter(ids).items():
        if times > 1:
            breaks.append(f"custom_id {custom_id!r} used {times} times")
    return breaks


def layout_text(view: Any) -> str:
    """What a reader sees of a Components V2 message's text: its text displays in order,
    one after another."""
    texts: list[str] = []

    def walk(component: Mapping[str, Any]) -> None:
        if component.get("type") == TEXT_DISPLAY:
            texts.append(component.get("content") or "")
        for child in component.get("components") or []:
            walk(child)

    for component in view.to_components():
        walk(component)
    return "\n".join(texts)


def check_message(content: str | None, view: Any) -> None:
    """Fail, naming every broken limit, when Discord would refuse this message."""
    breaks = rule_breaks(content, view)
    assert not breaks, "Discord would refuse this message: " + "; ".join(breaks)


MODAL_TITLE: Final = 45
MODAL_ROWS: Final = 5
INPUT_LABEL: Final = 45
INPUT_PLACEHOLDER: Final = 100
INPUT_LENGTH: Final = 4000
TEXT_INPUT: Final = 4


def modal_breaks(modal: Any) -> list[str]:
    """Every limit a modal (a form the bot opens) breaks: title 1–45 characters, a
    custom id, 1–5 rows of one text input each, labels 1–45, placeholders up to 100,
    lengths up to 4,000, ids unique."""
    breaks = []
    title = modal.title or ""
    if not 1 <= len(title) <= MODAL_TITLE:
        breaks.append(f"modal title of {len(title)} characters")
    if not 1 <= len(modal.custom_id or "") <= CUSTOM_ID:
        breaks.append("modal custom_id missing or too long")
    rows = modal.to_components()
    if not 1 <= len(rows) <= MODAL_ROWS:
        breaks.append(f"modal with {len(rows)} rows")
    ids = []
    for row in rows:
        items = row.get("components") or []
        if row.get("type") != ACTION_ROW or len(items) != 1 or items[0]["type"] != TEXT_INPUT:
            breaks.append(f"modal row {row!r} is not one text input")
            continue
        item = items[0]
        ids.append(item.get("custom_id"))
        if not 1 <= len(item.get("label") or "") <= INPUT_LABEL:
            breaks.append(f"text input label {item.get('label')!r}")
        if len(item.get("placeholder") or "") > INPUT_PLACEHOLDER:
            breaks.append("text input placeholder too long")
        if int(item.get("max_length") or 0) > INPUT_LENGTH:
            breaks.append("text input max_length over 4000")
    if len(set(ids)) != len(ids) or any(not i or len(i) > CUSTOM_ID for i in ids):
        breaks.append("text input custom ids missing, too long or repeated")
    return breaks


def check_modal(modal: Any) -> None:
    """Fail, naming every broken limit, when Discord would refuse this form."""
    breaks = modal_breaks(modal)
    assert not breaks, "Discord would refuse this modal: " + "; ".join(breaks)
