"""Reading a user's labelled files: CSV, TSV and JSON Lines, as records.

Every record is a dict of field name -> string (JSON values other than
strings are kept as they are) with the line it starts on, so errors can
name `file:line`. What users' files hold is taken in stride:

* a UTF-8 byte-order mark, CRLF line endings, blank lines at the end;
* quoted CSV/TSV fields holding the delimiter, quotes or newlines
  (`quoting="none"` reads quote characters as text, as GLUE's TSVs need);
* whitespace around field names and values (stripped).

And refused with a one-line `DataError` naming the file (and line): a file
that is missing, empty, not UTF-8, a header without rows, a row with more or
fewer fields than the header (saying when the other delimiter would fit,
i.e. mixed delimiters), a JSON line that is not an object.
"""

import csv
import dataclasses
import io
import json

import tensorflow as tf

from electra_tf import errors

FORMATS = ("csv", "tsv", "jsonl")
DELIMITERS = {"csv": ",", "tsv": "\t"}
QUOTING = {"minimal": csv.QUOTE_MINIMAL, "none": csv.QUOTE_NONE}
EXTENSION_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
                     ".jsonl": "jsonl", ".ndjson": "jsonl"}


@dataclasses.dataclass(frozen=True)
class Record:
  """One row or JSON object: field -> value, and where it starts."""
  fields: dict
  line: int


def format_of(path, given=None):
  """The table format of `path`: `given`, else from its extension."""
  if given:
    return given
  for extension, name in EXTENSION_FORMATS.items():
    if path.lower().endswith(extension):
      return name
  raise errors.ConfigError(
      f"cannot tell the format of {path} from its extension; set \"format\" "
      f"to one of {', '.join(FORMATS)}")


def read_text(path):
  """The whole file as text (BOM dropped); `DataError` if absent or bad."""
  if not tf.io.gfile.exists(path):
    raise errors.DataError(f"file not found: {path}")
  with tf.io.gfile.GFile(path, "rb") as f:
    data = f.read()
  try:
    text = data.decode("utf-8-sig")
  except UnicodeDecodeError as e:
    line = data[:e.start].count(b"\n") + 1
    raise errors.DataError(f"{path}:{line}: not UTF-8 text (byte "
                           f"{e.start})") from None
  if not text.strip():
    raise errors.DataError(f"{path} is empty")
  return text


def read_records(path, table_format, has_header=True, quoting="minimal"):
  """The records of a CSV/TSV/JSONL file (see the module docstring).

  Args:
    path: local or gs:// path.
    table_format: one of `FORMATS`.
    has_header: CSV/TSV: the first row names the fields; else fields are
      named by their index as strings ("0", "1", ...).
    quoting: CSV/TSV: "minimal" (quoted fields) or "none".
  """
  text = read_text(path)
  if table_format == "jsonl":
    return _json_lines(path, text)
  return _delimited(path, text, DELIMITERS[table_format], has_header,
                    QUOTING[quoting])


def _json_lines(path, text):
  records = []
  for number, line in enumerate(io.StringIO(text, newline=None), start=1):
    if not line.strip():
      continue
    try:
      value = json.loads(line)
    except json.JSONDecodeError as e:
      raise errors.DataError(f"{path}:{number}: not valid JSON ({e.msg})"
                             ) from None
    if not isinstance(value, dict):
      raise errors.DataError(f"{path}:{number}: expected a JSON object, got "
                             f"{type(value).__name__}")
    records.append(Record({str(k).strip(): _strip(v) for k, v in
                           value.items()}, number))
  if not records:
    raise errors.DataError(f"{path} holds no JSON objects")
  return records


def _delimited(path, text, delimiter, has_header, quoting):
  reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                      quoting=quoting, strict=quoting != csv.QUOTE_NONE)
  rows = []
  start = 1
  try:
    for row in reader:
      if any(field.strip() for field in row):
        rows.append((start, row))
      start = reader.line_num + 1
  except csv.Error as e:
    raise errors.DataError(
        f"{path}:{start}: {e} (if quote characters are plain text in this "
        "file, set \"quoting\": \"none\")") from None
  if not rows:
    raise errors.DataError(f"{path} holds no rows")
  if has_header:
    _, header = rows.pop(0)
    names = [name.strip() for name in header]
    if not rows:
      raise errors.DataError(f"{path} has a header but no rows")
  else:
    names = [str(i) for i in range(len(rows[0][1]))]
  records = []
  for line, row in rows:
    if len(row) != len(names):
      raise errors.DataError(_width_error(path, line, row, names, delimiter))
    records.append(Record({name: value.strip() for name, value in
                           zip(names, row)}, line))
  return records


def _width_error(path, line, row, names, delimiter):
  message = (f"{path}:{line}: {len(row)} field(s), but the "
             f"{'header' if names[0] != '0' else 'first row'} has "
             f"{len(names)}")
  other = "," if delimiter == "\t" else "\t"
  if len(delimiter.join(row).split(other)) == len(names):
    return (message + f"; this row looks {'comma' if other == ',' else 'tab'}"
            "-separated (mixed delimiters?)")
  return message + "; a quote left open, or a delimiter inside an unquoted field?"


def _strip(value):
  return value.strip() if isinstance(value, str) else value


def field(record, name, path):
  """`record`'s value of `name` (a field name, or an int: the n-th field);
  `DataError` naming file, line and field if it has none."""
  if isinstance(name, int):
    values = list(record.fields.values())
    if not -len(values) <= name < len(values):
      raise errors.DataError(f"{path}:{record.line}: no column {name}; it has "
                             f"{len(values)}")
    return values[name]
  if name not in record.fields:
    raise errors.DataError(
        f"{path}:{record.line}: no field {name!r}; it has "
        f"{sorted(record.fields)}")
  return record.fields[name]
