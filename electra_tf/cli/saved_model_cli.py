"""`saved_model_cli` that can run our exports (`electra-saved-model-cli`).

The raw-text signatures tokenize with tensorflow-text ops, which TensorFlow
only knows once `tensorflow_text` is imported; the stock `saved_model_cli`
never imports it, so its `run` command cannot load such a model (`show`
works either way). This command is the stock one with the ops registered:
same flags, same output.
"""

import tensorflow_text  # pylint: disable=unused-import  (registers the ops)
from tensorflow.python.tools import saved_model_cli


def run():
  """Console-script entry point."""
  saved_model_cli.main()


if __name__ == "__main__":
  run()
