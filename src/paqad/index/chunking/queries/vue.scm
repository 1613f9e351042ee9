; grammar: vue
; extensions: .vue
; script: javascript
; manifests: nuxt.config.* vue.config.*
; excluded_dirs: .nuxt .output
; Vue single-file components (checked on tree-sitter-language-pack 0.13.0's vue grammar): the
; text of each `<script>` / `<script setup>` element is cut as JavaScript, or TypeScript with
; `lang="ts"`, its functions, classes and constants becoming symbols (chunking/components.py);
; the template and styles are cut as text. A component lives in a JavaScript project: the
; JavaScript pack (`package.json`) makes `.vue` files eligible too (stacks.py; they are often
; deeper than the manifest scan, and a `*.vue` glob would stop the no-manifest fallback).
(script_element (start_tag) @tag (raw_text) @script)
