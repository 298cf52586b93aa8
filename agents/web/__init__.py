"""``machiavelli serve``: play against the registry's agents in a browser (the ``web`` extra).

:mod:`agents.web.games` holds the games (no HTTP; the engine decides every rule),
:mod:`agents.web.app` is the Starlette app, :mod:`agents.web.cli` the subcommand. Importing this
package imports neither Starlette nor uvicorn; only :mod:`agents.web.app` and the subcommand's
runner do. The page (``static/play.html``, ``play.js``, ``play.css``) draws cards with the script
and stylesheet it shares with the replay viewer (:mod:`agents.tableview`). See docs/WEB.md.
"""
