"""Replaced-token-detection pretraining: masking, sampling, model, losses."""
