"""Flat rows of a read's answer, for pandas, a spreadsheet or CSV, without requiring pandas.

``to_rows(answer)`` gives one dict per item of a list (``items``), per day of a time series
(``points``), or one dict for a single object (the metrics of ``get_metrics``, an analysis...). Nested
objects become dotted columns (``visibility.ci95.low``), a list of objects becomes columns named by what
names each element (``engines.chatgpt.visibility.value``), a list of plain values one cell of JSON.
``explode`` names a list to turn into rows instead: each of its elements makes a row of its own, beside
the fields of its parent (pandas' long format). The measurement window (``window.name``,
``window.first_day``, ``window.last_day``) starts every row when the answer states it, so rows of several
windows can be put together. The tracked brand of ``list_competitors`` is a row of its own, the first,
with ``tracked`` True (False on the competitors' rows). What an answer says of its list as a whole (the
rest of ``context``, the paging fields, the series' ``summary`` and ``segments``, the sources'
``categories``) is not a row and is left out: ``to_rows(answer["categories"])`` makes it one.

These are the rules, and the columns, of the TypeScript client's ``toRows``, and ``to_csv`` writes the
same bytes as its ``toCsv`` (test/clients/python.test.ts compares the two on the same answers).

    import pandas as pd  # not a dependency of this package: pip install pandas
    frame = pd.DataFrame(to_rows(client.list_engines("acme-core", window="30d")))
"""

from __future__ import annotations

import csv
import json
import math
from decimal import Decimal
from typing import IO, Any, Dict, Iterable, List, Mapping, Optional, Sequence

Row = Dict[str, Any]


def _label(element: Any, index: int) -> str:
    """What names an element of a list of objects in its columns: its key, engine or id, else its place."""
    if isinstance(element, Mapping):
        for field in ("key", "engine", "id"):
            value = element.get(field)
            if isinstance(value, str):
                return value
            if field == "engine" and isinstance(value, Mapping) and isinstance(value.get("key"), str):
                return value["key"]
    return str(index)


def _flatten(value: Any, prefix: str, out: Row, sep: str) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _flatten(inner, f"{prefix}{sep}{key}" if prefix else str(key), out, sep)
    elif isinstance(value, list):
        if all(v is None or not isinstance(v, (Mapping, list)) for v in value):
            out[prefix] = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        else:
            for index, element in enumerate(value):
                _flatten(element, f"{prefix}{sep}{_label(element, index)}", out, sep)
    else:
        out[prefix] = value


def flatten(value: Mapping[str, Any], sep: str = ".") -> Row:
    """One object as one flat row: nested objects as dotted columns, a list of objects as columns named by
    what names each element (``engines.chatgpt.visibility.value``), a list of plain values as JSON text."""
    out: Row = {}
    _flatten(value, "", out, sep)
    return out


def _window(answer: Mapping[str, Any], sep: str) -> Row:
    context = answer.get("context")
    window = context.get("window") if isinstance(context, Mapping) else None
    if not isinstance(window, Mapping):
        return {}
    return {f"window{sep}{k}": window.get(k) for k in ("name", "first_day", "last_day")}


def _aligned(row: Row, like: Optional[Row]) -> Row:
    """The tracked brand's row in the columns of the competitors' rows: the fields it lacks (``kind``,
    ``competitor_id``, ``domain``) stay empty in their place, so that the columns keep the items' order."""
    out: Row = {column: row.get(column) for column in (like or {})}
    for column, value in row.items():
        out.setdefault(column, value)
    return out


def _record_rows(record: Any, head: Row, explode: Optional[str], sep: str) -> List[Row]:
    if not isinstance(record, Mapping):
        # A plain value has no field to name a column by (the TypeScript client calls it `value` too).
        value = json.dumps(record, ensure_ascii=False, separators=(",", ":")) if isinstance(record, list) else record
        return [{**head, "value": value}]
    inner = record.get(explode) if explode else None
    if explode and isinstance(inner, list):
        parent = flatten({k: v for k, v in record.items() if k != explode}, sep)
        rows = []
        for element in inner:
            child = flatten(element, sep) if isinstance(element, Mapping) else {"value": element}
            rows.append({**head, **parent, **{f"{explode}{sep}{k}": v for k, v in child.items()}})
        return rows
    return [{**head, **flatten(record, sep)}]


def to_rows(answer: Any, *, explode: Optional[str] = None, sep: str = ".") -> List[Row]:
    """The rows of a read's answer (see the module's description); a list (the items ``paginate`` gave)
    makes one row per element, as they are."""
    if isinstance(answer, list):
        return [row for record in answer for row in _record_rows(record, {}, explode, sep)]
    if "items" in answer and isinstance(answer["items"], list):
        records: Sequence[Any] = answer["items"]
    elif "points" in answer and isinstance(answer["points"], list):
        records = answer["points"]
    else:
        records = [{k: v for k, v in answer.items() if k != "context"}]
    head = _window(answer, sep)
    tracked = answer.get("tracked") if isinstance(answer.get("items"), list) else None
    if isinstance(tracked, Mapping):
        # Ranked with its competitors (rank 1 is often the tracked brand), so a row of the ranking: left
        # out, the CSV of competitors would lack the one brand the analysis is about.
        competitors = [row for record in records for row in _record_rows(record, {}, explode, sep)]
        first = _aligned(_record_rows(tracked, {}, explode, sep)[0], competitors[0] if competitors else None)
        return [{**head, "tracked": True, **first}, *({**head, "tracked": False, **row} for row in competitors)]
    return [row for record in records for row in _record_rows(record, head, explode, sep)]


# A spreadsheet runs a cell that starts with one of these as a formula; answer texts and cited URLs are
# third-party content, so such a text cell gets a leading apostrophe (numbers stay numbers).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _number(value: float) -> str:
    """A float as JavaScript writes it (``String(x)``), so that this CSV is the TypeScript client's byte for
    byte: the same shortest digits as ``repr``, but a plain decimal from 1e-7 to 1e21 (``0.000039``, not
    ``3.9e-05``) and no ``.0`` on a whole number."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    text = "".join(str(d) for d in digits)
    k = len(text)
    n = k + int(exponent)  # the value is 0.<digits> x 10^n
    if k <= n <= 21:
        out = text + "0" * (n - k)
    elif 0 < n <= 21:
        out = text[:n] + "." + text[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + text
    else:
        mantissa = text if k == 1 else text[0] + "." + text[1:]
        out = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return ("-" if sign else "") + out


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _leaf_columns(columns: List[str]) -> List[str]:
    """The columns that hold values: an object None in one row (a series day's ``change`` on its first
    day) and flattened in another gives a column of its own name beside its dotted ones; its cells are all
    empty, so its leaves take its place."""

    def is_parent(c: str) -> bool:
        return any(k.startswith(c + ".") for k in columns)

    out: List[str] = []
    placed = set()
    for c in columns:
        group = [k for k in columns if k.startswith(c + ".") and not is_parent(k)] if is_parent(c) else [c]
        for k in group:
            if k not in placed:
                placed.add(k)
                out.append(k)
    return out


def to_csv(rows: Iterable[Mapping[str, Any]], file: IO[str]) -> int:
    """Writes rows as CSV and returns the row count: a header of every column met, in the order met;
    RFC 4180 quoting and CRLF line ends (open the file with ``newline=""``); empty cells for None and
    missing values; ``true``/``false``; a text cell that starts like a formula gets a leading ``'``.
    The same CSV as the TypeScript client's ``toCsv`` for the same rows.
    """
    materialized = list(rows)
    met: Dict[str, None] = {}
    for row in materialized:
        for key in row:
            met.setdefault(key, None)
    columns = _leaf_columns(list(met))
    writer = csv.writer(file, lineterminator="\r\n")
    writer.writerow([_cell(c) for c in columns])
    for row in materialized:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return len(materialized)
