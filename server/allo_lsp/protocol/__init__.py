"""Messages between the server's job manager and the runner process (JSON files).

Stdlib only: the runner imports this from inside the user's Allo interpreter.
"""
