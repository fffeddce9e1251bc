"""A small English corpus already on every machine: Python's docstrings.

Walks the standard library's source files in a fixed order, takes module,
class and function docstrings of prose, splits them into sentences and
writes them in the pretraining format (one sentence per line, a blank line
between documents) until a size budget is reached. Same Python, same corpus.
"""

import ast
import os
import re
import sysconfig

import tensorflow as tf

from electra_tf import errors

DEFAULT_MAX_BYTES = 6_000_000
DONE_MARKER = "COMPLETE"
FILE_BYTES = 500_000  # text per output file
MIN_WORDS = 5  # shorter paragraphs (signatures, "Return x.") are skipped
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
_CODE_LIKE = re.compile(r"^\s*(>>>|\.\.\.|[-=*~+|]{3,}|\+[-=]|:\w+:|\$ |\|)")
_SKIPPED_DIRS = {"test", "tests", "idlelib", "site-packages", "dist-packages",
                 "__pycache__", "lib2to3", "turtledemo", "ensurepip",
                 "_vendor", "vendored", "third_party"}


def _source_files(root):
  for directory, subdirs, files in os.walk(root):
    subdirs[:] = sorted(d for d in subdirs if d not in _SKIPPED_DIRS)
    for name in sorted(files):
      if name.endswith(".py"):
        yield os.path.join(directory, name)


def _docstrings(path):
  try:
    with open(path, encoding="utf-8") as f:
      tree = ast.parse(f.read())
  except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
    return
  for node in ast.walk(tree):
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                         ast.AsyncFunctionDef)):
      text = ast.get_docstring(node)
      if text:
        yield text


def document_sentences(docstring):
  """The prose sentences of one docstring (code and tables dropped)."""
  sentences = []
  for paragraph in re.split(r"\n\s*\n", docstring):
    lines = paragraph.splitlines()
    if any(_CODE_LIKE.match(line) for line in lines):
      continue
    text = " ".join(line.strip() for line in lines)
    if len(text.split()) < MIN_WORDS:
      continue
    sentences.extend(s.strip() for s in _SENTENCE_END.split(text) if s.strip())
  return sentences


def default_roots():
  """The standard library, then the installed packages."""
  roots = [sysconfig.get_path("stdlib"), sysconfig.get_path("purelib")]
  return [r for i, r in enumerate(roots) if r and r not in roots[:i]]


def write_docstring_corpus(output_dir, max_bytes=DEFAULT_MAX_BYTES,
                           roots=None):
  """Writes `corpus-NNN.txt` files under `output_dir`; returns their paths."""
  roots = roots or default_roots()
  tf.io.gfile.makedirs(output_dir)
  paths, chunk, written = [], [], 0

  def flush():
    path = os.path.join(output_dir, f"corpus-{len(paths):03d}.txt")
    with tf.io.gfile.GFile(path, "w") as f:
      f.write("".join(chunk))
    paths.append(path)
    chunk.clear()

  size = 0
  sources = (path for root in roots for path in _source_files(root))
  for source in sources:
    for docstring in _docstrings(source):
      sentences = document_sentences(docstring)
      if len(sentences) < 2:
        continue
      text = "\n".join(sentences) + "\n\n"
      chunk.append(text)
      size += len(text.encode("utf-8"))
      written += len(text.encode("utf-8"))
      if size >= FILE_BYTES:
        flush()
        size = 0
      if written >= max_bytes:
        break
    if written >= max_bytes:
      break
  if chunk:
    flush()
  if not paths:
    raise errors.DataError(f"no docstrings found under {', '.join(roots)}")
  return paths


def docstring_corpus_files(folder, max_bytes=DEFAULT_MAX_BYTES):
  """The corpus files under `folder`, written once (a half-written folder,
  from a killed run, is written again); returns their sorted paths."""
  if not tf.io.gfile.exists(os.path.join(folder, DONE_MARKER)):
    if tf.io.gfile.exists(folder):
      tf.io.gfile.rmtree(folder)
    write_docstring_corpus(folder, max_bytes)
    with tf.io.gfile.GFile(os.path.join(folder, DONE_MARKER), "w") as f:
      f.write("")
  return sorted(tf.io.gfile.glob(os.path.join(folder, "corpus-*.txt")))
