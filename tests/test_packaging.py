"""What a non-editable install (`pip install .`, a wheel) ships, read from
setup.cfg: every package of the source tree and every preset file."""

import configparser
import fnmatch
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _options():
  parser = configparser.ConfigParser()
  parser.read(os.path.join(ROOT, "setup.cfg"))
  return parser


def _listed(value):
  return {line.strip() for line in value.splitlines() if line.strip()}


def _source_packages():
  """Dotted names of the folders of electra_tf that hold an __init__.py."""
  found = set()
  for folder, _, files in os.walk(os.path.join(ROOT, "electra_tf")):
    if "__init__.py" in files:
      found.add(os.path.relpath(folder, ROOT).replace(os.sep, "."))
  return found


def test_setup_cfg_lists_every_package_of_the_source_tree():
  packages = _listed(_options()["options"]["packages"])
  missing = _source_packages() - packages
  assert not missing, f"setup.cfg [options] packages lacks {sorted(missing)}"
  assert packages - _source_packages() == {"electra_tf.presets"}


def test_every_preset_json_is_package_data():
  options = _options()
  package_dir = dict(
      (part.strip() for part in line.split("="))
      for line in _listed(options["options"]["package_dir"]))
  assert package_dir == {"electra_tf.presets": "configs"}
  patterns = [p.strip() for p in
              options["options.package_data"]["electra_tf.presets"].split(",")]
  configs = os.path.join(ROOT, "configs")
  presets = [os.path.relpath(os.path.join(folder, name), configs)
             for folder, _, files in os.walk(configs) for name in files]
  assert presets
  unshipped = [path for path in presets
               if not any(fnmatch.fnmatch(path, p) for p in patterns)]
  assert not unshipped, f"not in package_data: {unshipped}"
