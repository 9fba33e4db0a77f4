from allo_lsp.cli import main

raise SystemExit(main())
