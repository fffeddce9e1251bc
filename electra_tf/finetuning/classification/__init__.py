"""Text and text-pair classification and regression (GLUE, own CSV/TSV/JSONL)."""
