"""Command-line entry points (installed as electra-* console scripts).

Importing this package quiets TensorFlow's C++ start-up logging unless the
user set TF_CPP_MIN_LOG_LEVEL; it must happen before TensorFlow loads.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
