"""The subcommands of `rulebook`, one module each; `common` holds what they share
(exit codes, errors, the JSON shape, argument types)."""
