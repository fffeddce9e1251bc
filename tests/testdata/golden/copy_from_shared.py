"""Copies the parts of the shared golden sets the tests use into this folder.

Run from the repository root when the goldens change:
  python tests/testdata/golden/copy_from_shared.py ../shared/golden/model
Arrays are packed per set into one compressed `arrays.npz` (keys are
`<folder>/<name>`); the TF1 checkpoint before the step is copied as is, and
the model variables after the step (optimizer slots dropped) go into
`after_step.npz` keyed by their TF1 names. One set keeps its whole TF1
checkpoint after the step (weights, Adam slots, global_step).
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

SETS = ("tiny_proj", "tiny_noproj_gen1_mask25_T05_disallow")
FOLDERS = ("inputs", "disc_only", "pretrain", "pretrain/grads")
SKIPPED = ("mlm_probs.npy",)  # softmax of mlm_logits: derivable, large
WHOLE_CHECKPOINT_AFTER_STEP = ("tiny_proj",)


def copy_set(source, target):
  os.makedirs(os.path.join(target, "ckpt_init"), exist_ok=True)
  for name in os.listdir(os.path.join(source, "ckpt_init")):
    shutil.copy(os.path.join(source, "ckpt_init", name),
                os.path.join(target, "ckpt_init", name))
  for name in ("config.json", "finetune_vars.json"):
    if os.path.exists(os.path.join(source, name)):
      shutil.copy(os.path.join(source, name), os.path.join(target, name))
  arrays = {}
  for folder in FOLDERS:
    for name in sorted(os.listdir(os.path.join(source, folder))):
      if name.endswith(".npy") and name not in SKIPPED:
        arrays[f"{folder}/{name[:-4]}"] = np.load(
            os.path.join(source, folder, name))
  np.savez_compressed(os.path.join(target, "arrays.npz"), **arrays)
  reader = tf.train.load_checkpoint(os.path.join(source, "ckpt_after_step"))
  after = {name: reader.get_tensor(name)
           for name in reader.get_variable_to_shape_map()
           if not name.endswith(("adam_m", "adam_v"))}
  np.savez_compressed(os.path.join(target, "after_step.npz"), **after)
  if os.path.basename(source) in WHOLE_CHECKPOINT_AFTER_STEP:
    shutil.copytree(os.path.join(source, "ckpt_after_step"),
                    os.path.join(target, "ckpt_after_step"), dirs_exist_ok=True)


def main(golden_model_dir):
  here = os.path.dirname(os.path.abspath(__file__))
  for name in SETS:
    copy_set(os.path.join(golden_model_dir, name), os.path.join(here, name))
  print(json.dumps(sorted(os.listdir(here))))


if __name__ == "__main__":
  main(sys.argv[1])
