"""Per-word tagging (CoNLL-2000 chunking, own CoNLL-style files)."""
