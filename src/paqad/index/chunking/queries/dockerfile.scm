; grammar: dockerfile
; extensions: .dockerfile
; filenames: Dockerfile Containerfile
; transparent: env_instruction
; Definitions of Dockerfiles (checked on tree-sitter-language-pack 0.13.0's dockerfile grammar):
; a build stage's name (`FROM python:3.12 AS builder`), a build argument (`ARG PYTHON_VERSION=3.12`)
; and every variable of an `ENV` (`ENV CONDA_DIR=/opt/conda SHELL=/bin/bash`: the instruction is
; looked through, each pair is a definition). `Dockerfile.dev` and other variants are Dockerfiles
; too (languages.py). No manifest: a Dockerfile is indexed in every project (filters.py), and
; a manifest here would stop the no-manifest fallback (every pack by extension) of a project
; holding only a Dockerfile and scripts.
(from_instruction as: (image_alias) @name) @definition.module
(arg_instruction name: (unquoted_string) @name) @definition.function
(env_pair name: (unquoted_string) @name) @definition.function
