"""README.md's code blocks and the commands in them, as a reader copies them.

A fenced block is a diagram (it draws arrows with box-drawing characters), a
Python program (its first line imports something) or shell commands: one
command per line, with an optional `$ ` prompt, `\\` continuing a line,
quoted text running over several lines, and trailing `# comments`.
Prose names commands too, in code spans: those starting with a tool and
giving it arguments are its inline commands.

  python -m tests.readme_commands BLOCK.py CHECKS.py

runs a Python block as a script, then CHECKS.py in the same namespace with
`_` holding the value of the block's last line when that is an expression
(what an interactive session would show).
"""

import ast
import dataclasses
import re
import sys

FENCE = "```"
PROMPT = "$ "
DIAGRAM_CHARACTERS = ("─", "▶")
SHELL, PYTHON, DIAGRAM = "shell", "python", "diagram"
INLINE_TOOL = re.compile(
    r"(electra-[a-z-]+|python|pip|saved_model_cli|tensorboard|\.ci/\S+) ")


@dataclasses.dataclass(frozen=True)
class Block:
  """A fenced block: its kind, its text and the line of its opening fence."""
  kind: str
  text: str
  line: int


@dataclasses.dataclass(frozen=True)
class Command:
  """A shell command: its text as written (without prompt and comment)."""
  text: str
  line: int

  @property
  def key(self):
    """The command on one line, as the tests name it."""
    return " ".join(self.text.replace("\\\n", " ").split())


def _kind(language, body):
  if language == "python" or (body and body[0].startswith("import ")):
    return PYTHON
  if any(c in line for line in body for c in DIAGRAM_CHARACTERS):
    return DIAGRAM
  return SHELL


def blocks(markdown):
  """The fenced blocks of a Markdown text, in order."""
  found = []
  lines = markdown.splitlines()
  i = 0
  while i < len(lines):
    if lines[i].startswith(FENCE):
      start, body = i, []
      i += 1
      while i < len(lines) and not lines[i].startswith(FENCE):
        body.append(lines[i])
        i += 1
      language = lines[start][len(FENCE):].strip()
      found.append(Block(_kind(language, body), "\n".join(body) + "\n",
                         start + 1))
    i += 1
  return found


def inline_commands(markdown):
  """Commands in the prose's code spans (on one line), in order."""
  prose = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
  spans = (" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose))
  return [span for span in spans if INLINE_TOOL.match(span)]


def _code(line, quote):
  """`line` up to an unquoted `# comment`, and the quote open at its end
  (`quote`: the one open at its start)."""
  for i, char in enumerate(line):
    if quote:
      quote = None if char == quote else quote
    elif char in "'\"":
      quote = char
    elif char == "#" and (i == 0 or line[i - 1].isspace()):
      return line[:i].rstrip(), None
  return line, quote


def commands(block):
  """The commands of a shell block, in order."""
  found, text, quote, start = [], "", None, 0
  for number, line in enumerate(block.text.splitlines(), block.line + 1):
    if not text:
      line = line[len(PROMPT):] if line.startswith(PROMPT) else line
      if not line.strip():
        continue
      start = number
    code, quote = _code(line, quote)
    text += code
    if quote or code.rstrip().endswith("\\"):
      text += "\n"
      continue
    found.append(Command(text.rstrip(), start))
    text = ""
  if text:
    raise ValueError(f"README line {start}: unterminated command {text!r}")
  return found


def run_python_block(block_path, checks_path):
  """Runs a block, then the checks with `_` = its last expression's value."""
  with open(block_path) as f:
    tree = ast.parse(f.read(), block_path)
  namespace = {"__name__": "__main__"}
  *body, last = tree.body
  if not isinstance(last, ast.Expr):
    body.append(last)
  exec(compile(ast.Module(body, []), block_path, "exec"), namespace)  # pylint: disable=exec-used
  if isinstance(last, ast.Expr):
    namespace["_"] = eval(  # pylint: disable=eval-used
        compile(ast.Expression(last.value), block_path, "eval"), namespace)
  with open(checks_path) as f:
    exec(compile(f.read(), checks_path, "exec"), namespace)  # pylint: disable=exec-used


if __name__ == "__main__":
  run_python_block(sys.argv[1], sys.argv[2])
