"""HTTP plumbing shared by the API and the outbound clients: pagination, request replay protection,
per-client allowances, inbound event checks and patient calls to upstream services."""

from __future__ import annotations
