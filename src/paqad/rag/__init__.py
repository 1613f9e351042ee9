"""The retrieval layer: discover -> filter -> chunk -> embed -> store -> search -> deliver."""
