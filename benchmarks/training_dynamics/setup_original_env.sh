#!/bin/bash
# Sets up what run_comparison.py needs from outside this project: a checkout
# of the original ELECTRA and a Python environment that runs it.
#
#   benchmarks/training_dynamics/setup_original_env.sh DIR
#
# DIR/electra   google-research/electra at the commit compared against
#               (8a46635), run unchanged;
# DIR/origenv   a virtualenv with TensorFlow 2.21 and tf-keras 2.21: the
#               original builds its layers with tf.compat.v1.layers, which
#               needs Keras 2 (TF_USE_LEGACY_KERAS=1, set by the drivers).
#
# Then:
#   python benchmarks/training_dynamics/run_comparison.py \
#       --electra_dir=DIR/electra --original_python=DIR/origenv/bin/python \
#       --work_dir=DIR/work
set -euo pipefail
DIR=${1:?usage: $0 DIR}
ELECTRA_COMMIT=8a46635
mkdir -p "$DIR"
if [ ! -d "$DIR/electra" ]; then
  git clone https://github.com/google-research/electra.git "$DIR/electra"
fi
git -C "$DIR/electra" checkout --quiet "$ELECTRA_COMMIT"
if [ ! -x "$DIR/origenv/bin/python" ]; then
  python3 -m venv "$DIR/origenv"
fi
"$DIR/origenv/bin/pip" install --quiet "tensorflow==2.21.0" "tf-keras==2.21.*"
TF_USE_LEGACY_KERAS=1 "$DIR/origenv/bin/python" -c \
    "import tensorflow as tf, tf_keras; print('TF', tf.__version__, 'tf-keras', tf_keras.__version__)"
