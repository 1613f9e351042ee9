; grammar: svelte
; extensions: .svelte
; script: javascript
; manifests: svelte.config.*
; excluded_dirs: .svelte-kit
; Svelte components (checked on tree-sitter-language-pack 0.13.0's svelte grammar): the text of
; each `<script>` element (also `<script context="module">` / `<script module>`) is cut as
; JavaScript, or TypeScript with `lang="ts"`, its functions, classes and constants becoming
; symbols (chunking/components.py); the markup, `{#each}`/`{#if}` blocks and styles are cut as
; text. The JavaScript pack (`package.json`) makes `.svelte` files eligible too (stacks.py): a
; SvelteKit app's components sit under `src/routes/`.
(script_element (start_tag) @tag (raw_text) @script)
