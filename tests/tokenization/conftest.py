"""Fixtures of the tokenization tests: the copied goldens, as the data tests
see them."""

# Imported so pytest offers these fixtures here too.
from tests.data.conftest import bert_vocab_file  # noqa: F401
from tests.data.conftest import golden_example_sets  # noqa: F401
from tests.data.conftest import golden_tokens  # noqa: F401
from tests.data.conftest import tiny_vocab_file  # noqa: F401
