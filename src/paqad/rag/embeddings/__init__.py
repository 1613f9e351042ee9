"""Embedding providers: local ONNX (default), OpenAI, Voyage AI."""
