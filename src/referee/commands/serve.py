"""`referee serve`: the referee's tracker, a web page over the engine (see docs/tracker.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli import app, console


@app.command()
def serve(
    db: Annotated[Path, typer.Option(help="The tracker's SQLite file (created if missing).")] = Path(
        "referee.sqlite3"
    ),
    host: Annotated[
        str, typer.Option(help="Address to listen on (127.0.0.1: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    password: Annotated[
        str | None, typer.Option(help="Also accept this password as the referee's credential (/login).")
    ] = None,
    examples: Annotated[
        Path | None,
        typer.Option(help="Folder of example encounter files (default: the repository's examples/)."),
    ] = None,
) -> None:
    """Serve the tracker; print the referee's link (with its secret token) and the players' links."""
    import uvicorn

    from referee.web.app import Settings, create_app

    web = create_app(Settings(db=db, password=password, examples=examples, collect_when_quiet=True))
    store = web.state.store
    everywhere = host in {"0.0.0.0", "::"}
    base = f"http://{reachable_address() if everywhere else host}:{port}"
    if everywhere:
        console.print(f"listening on every address; the links use this machine's address ({base})")
    console.print(f"referee's link (keep it secret): {base}/?token={store.admin_token()}", soft_wrap=True)
    if password:
        console.print(f"or log in with the password at {base}/login", soft_wrap=True)
    rows = store.encounters()
    if rows:
        for row in rows:
            console.print(
                f"players' link for {row.name!r}: {base}/p/{row.id}/{row.player_token}", soft_wrap=True
            )
    else:
        console.print("players' links: each encounter's page shows its own (\"players' view\").")
    tune_for_serving()
    uvicorn.run(web, host=host, port=port, log_level="warning")


def tune_for_serving() -> None:
    """Two settings of the process for serving steps quickly and evenly (issue 12, item 5).

    What start-up made (modules, the catalog, the app: about 100,000 objects that live as long as the server)
    is moved out of the cycle collector's reach, so that its full collections walk only the fights kept since:
    walking everything stopped every request for 100-400 ms now and then on a loaded machine. And a thread
    back from a write's fsync waits for the GIL while another thread computes: at CPython's 5 ms switch
    interval it held the write lock, and every writer queued behind it, that much longer; 1 ms bounds that."""
    import gc
    import sys

    gc.collect()
    gc.freeze()
    sys.setswitchinterval(0.001)


def reachable_address() -> str:
    """This machine's address on its network, for links that other machines can open (`--host 0.0.0.0`);
    the host name when there is no network."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # a documentation address: nothing is sent, a route is chosen
            return str(probe.getsockname()[0])
    except OSError:
        return socket.gethostname()
