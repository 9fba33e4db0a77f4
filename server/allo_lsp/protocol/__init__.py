"""Messages between the server's job manager and the runner process (JSON over pipes: `pipes.py`).

Stdlib only: the runner imports this from inside the user's Allo interpreter.
"""
