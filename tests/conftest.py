"""Fixtures: the golden sets copied from the original implementation."""

import dataclasses
import json
import os

import numpy as np
import pytest

import electra_tf

TESTDATA = os.path.join(os.path.dirname(__file__), "testdata")
GOLDEN_SETS = ("tiny_proj", "tiny_noproj_gen1_mask25_T05_disallow")


@dataclasses.dataclass
class GoldenSet:
  """One configuration run through the original code (see testdata/golden)."""
  name: str
  path: str
  info: dict  # the golden config.json
  arrays: dict  # "<folder>/<name>" -> np.ndarray

  @property
  def config(self):
    return electra_tf.PretrainingConfig.from_hparams(
        self.info["pretraining_hparams_passed"])

  @property
  def init_checkpoint(self):
    return os.path.join(self.path, "ckpt_init", "model.ckpt")

  def features(self):
    return {k: self.arrays[f"inputs/{k}"]
            for k in ("input_ids", "input_mask", "segment_ids")}

  def noise(self):
    return {
        "position_gumbel": self.arrays["pretrain/noise_categorical_gumbel"],
        "mask_uniform": self.arrays["pretrain/noise_uniform_0"],
        "sample_uniform": self.arrays["pretrain/noise_uniform_1"],
    }

  def after_step(self):
    with np.load(os.path.join(self.path, "after_step.npz")) as data:
      return dict(data)

  def loaded_pretrainer(self, **overrides):
    model = electra_tf.ElectraPretrainer(self.config.override(**overrides))
    electra_tf.load_original_checkpoint(model, self.init_checkpoint)
    return model


def folder_bytes(folder):
  """{file name: bytes} of every file in `folder` (a built dataset, say)."""
  contents = {}
  for name in sorted(os.listdir(folder)):
    with open(os.path.join(folder, name), "rb") as f:
      contents[name] = f.read()
  return contents


def load_golden(name):
  path = os.path.join(TESTDATA, "golden", name)
  with open(os.path.join(path, "config.json")) as f:
    info = json.load(f)
  with np.load(os.path.join(path, "arrays.npz")) as data:
    arrays = dict(data)
  return GoldenSet(name=name, path=path, info=info, arrays=arrays)


@pytest.fixture(params=GOLDEN_SETS, scope="session")
def golden(request):
  return load_golden(request.param)
