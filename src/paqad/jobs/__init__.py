"""One library call per job (issue 18, DESIGN §12): the CLI, the refresh and the MCP server parse
and print; the workflow (sync, search, band) lives here and returns frozen results."""
