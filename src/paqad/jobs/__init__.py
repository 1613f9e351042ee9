"""One library call per job (issue 18, DESIGN §12): the CLI, the refresh and the MCP server parse
and print; the workflow (sync, search, band) lives here and returns frozen results.

``build`` (init, rebuild), ``status`` (status, --explain), ``probe``; ``sync_policy`` (what each
caller syncs, how long it waits) and ``sync_search`` (sync within the budget, then search, then
band: the one path of probe, the refresh and the MCP server's ``search_code``).
"""
