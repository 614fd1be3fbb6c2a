"""The ir-workbench desktop window.

``model/`` holds the window's state and rules in plain Python (no Qt); ``session.py`` is the Qt
adapter that turns the model's events into signals and runs its jobs (``jobs/``); ``views/`` are
the Qt widgets that show the session; ``system/`` logging and platform checks; ``app.py`` starts
it all.
"""
