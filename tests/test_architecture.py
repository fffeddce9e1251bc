"""The layering the README's folder table describes, checked from the source.

Imports are read with `ast`, so nothing is imported to check them.
"""

import ast
import collections
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "electra_tf")


def _modules():
  """Dotted module name -> path of every module of electra_tf."""
  modules = {}
  for folder, _, files in os.walk(PACKAGE):
    for name in files:
      if name.endswith(".py"):
        path = os.path.join(folder, name)
        dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
        modules[dotted.removesuffix(".__init__")] = path
  return modules


MODULES = _modules()


def _imports(path):
  """(imported electra_tf module, is the import at module level) pairs."""
  tree = ast.parse(open(path, encoding="utf-8").read())
  top_level = {id(node) for node in tree.body}
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
      names = [f"{node.module}.{alias.name}"
               if f"{node.module}.{alias.name}" in MODULES else node.module
               for alias in node.names]
    else:
      continue
    for name in names:
      if name.startswith("electra_tf"):
        yield name, id(node) in top_level


def _graph(group):
  """Edges between groups of modules (`group` maps a module to its group)."""
  edges = collections.defaultdict(set)
  for module, path in MODULES.items():
    for imported, _ in _imports(path):
      source, target = group(module), group(imported)
      if None not in (source, target) and source != target:
        edges[source].add(target)
  return edges


def _cycle(edges):
  """One cycle of the directed graph `edges` as a list, or None."""
  state = {}

  def visit(node, path):
    state[node] = "open"
    for nxt in sorted(edges.get(node, ())):
      if state.get(nxt) == "open":
        return path[path.index(nxt):] + [nxt]
      if nxt not in state:
        found = visit(nxt, path + [nxt])
        if found:
          return found
    state[node] = "done"
    return None

  for start in sorted(edges):
    if start not in state:
      found = visit(start, [start])
      if found:
        return found
  return None


def test_cycle_finder_finds_a_cycle():
  assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
  assert _cycle({"a": {"b"}, "b": {"c"}}) is None


def test_no_module_imports_another_that_imports_it_back():
  # A package's __init__ re-exporting its children is not a cycle.
  def module(name):
    return None if name == "electra_tf" or (
        MODULES.get(name, "").endswith("__init__.py")) else name
  assert _cycle(_graph(module)) is None


def test_packages_depend_one_way():
  def package(name):
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else None
  assert _cycle(_graph(package)) is None


def test_no_import_is_deferred_into_a_function():
  deferred = [(module, imported) for module, path in MODULES.items()
              for imported, top_level in _imports(path) if not top_level]
  assert deferred == []


def test_every_package_says_what_it_owns():
  for module, path in MODULES.items():
    if path.endswith("__init__.py"):
      docstring = ast.get_docstring(ast.parse(open(path).read())) or ""
      assert len(docstring.split()) >= 5, f"{path}: no docstring"


def test_readme_folder_table_matches_the_tree():
  readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
  listed = set(re.findall(r"^\| `electra_tf/([a-z_]+)/` \|", readme, re.M))
  packages = {name for name in os.listdir(PACKAGE)
              if os.path.isfile(os.path.join(PACKAGE, name, "__init__.py"))}
  assert listed == packages
