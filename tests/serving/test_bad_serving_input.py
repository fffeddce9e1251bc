"""Bad input at serving time gives results or a clear error, never a crash.

Every raw-text signature gets, in the fresh process that also serves the
other calls afterwards: an empty string, invalid UTF-8, control and
zero-width characters, a 100,000-character word, a 20,000-word text, a
batch of mixed lengths and an empty batch (pair tasks get the texts in both
fields). All return one result per input. An out-of-vocabulary token id
is an error naming the id and the vocab range, and the process goes on.
"""

import numpy as np
import pytest

from tests.serving import cases
from tests.serving import conftest

TASKS = ("sst", "sts", "squad", "chunk")
PER_EXAMPLE_OUTPUT = {"sst": "label", "sts": "score", "squad": "answer_text",
                      "chunk": "num_words"}


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("case", tuple(cases.BAD_TEXTS))
def test_bad_texts_give_one_result_each(exports, served, name, case):
  call = f"{name}.bad.{case}"
  assert call not in served.errors
  got = served.outputs(call)
  texts = cases.BAD_TEXTS[case]
  assert got[PER_EXAMPLE_OUTPUT[name]].shape[0] == len(texts)
  for value in got.values():
    assert value.shape[0] == len(texts)
    if value.dtype.kind == "f":
      assert np.isfinite(value).all()
  if not texts:
    return
  seq = exports[name].config.max_seq_length
  mask = got["input_mask"]
  assert mask.shape[-1] <= seq and mask.sum(-1).max(initial=0) <= seq
  if name == "squad" and case == "long_text":  # every window runs
    assert got["num_windows"][0] > 1000
  if name == "chunk" and case == "long_text":  # too long to tag, as finetuning
    assert got["num_words"][0] == 20000 and got["num_tagged"][0] == 0


@pytest.mark.parametrize("name", TASKS)
def test_out_of_vocab_id_is_a_clear_error(exports, served, name):
  error = served.errors[f"{name}.bad.out_of_vocab_id"]
  assert error.startswith("InvalidArgumentError")
  vocab_size = exports[name].config.vocab_size
  assert (f"token ids must be in [0, {vocab_size}); got] "
          f"[{conftest.OUT_OF_VOCAB_ID}]") in error
