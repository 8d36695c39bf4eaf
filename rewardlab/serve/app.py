"""The ASGI app of ``rewardlab serve`` (Starlette): OpenEnv's ``/ws`` protocol plus ``/health``,
``/schema`` and ``/metadata``.

Limits, all per server: at most ``max_sessions`` open sessions (one more connection is told
``CAPACITY_REACHED`` and closed, the others carry on; a session is open until its env is closed, so an env still
freeing a container counts); a session that sends nothing for
``idle_timeout`` seconds is closed and its env freed; a frame over ``max_frame_bytes`` gets a
``VALIDATION_ERROR`` and the session goes on. With a ``token``, every connection and request but
``/health`` must carry it (``Authorization: Bearer <token>`` or ``?token=<token>``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import sys
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from rewardlab.serve.config import ServeConfig
from rewardlab.serve.metadata import MetadataCache, schemas
from rewardlab.serve.protocol import ErrorCode, ProtocolError, dumps, error_frame, parse_message
from rewardlab.serve.session import CHEAP_CALL_WORKERS, Session

__all__ = ["create_app"]

CLOSE_NORMAL, CLOSE_POLICY, CLOSE_TRY_LATER, CLOSE_INTERNAL = 1000, 1008, 1013, 1011


if sys.version_info >= (3, 11):
    _timeout = asyncio.timeout
else:  # pragma: no cover - Python 3.10

    @contextlib.asynccontextmanager
    async def _timeout(delay: float) -> AsyncIterator[None]:
        task = asyncio.current_task()
        assert task is not None
        handle = asyncio.get_running_loop().call_later(delay, task.cancel)
        try:
            yield
        except asyncio.CancelledError:
            raise TimeoutError from None
        finally:
            handle.cancel()


class Server:
    """The app's state: the open sessions and the env metadata."""

    def __init__(self, config: ServeConfig):
        self.config = config
        self.sessions: dict[str, Session] = {}
        self.metadata = MetadataCache(config.env_ids)
        self.cheap_pool = ThreadPoolExecutor(max_workers=CHEAP_CALL_WORKERS, thread_name_prefix="rewardlab-cheap")

    def authorized(self, connection: HTTPConnection) -> bool:
        if self.config.token is None:
            return True
        header = connection.headers.get("authorization", "")
        offered = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
        offered = offered or connection.query_params.get("token", "")
        return hmac.compare_digest(offered.encode(), self.config.token.encode())

    async def websocket(self, websocket: WebSocket) -> None:
        """One session: accept, then answer messages until close, disconnect, idle timeout or a fault."""
        await websocket.accept()
        if not self.authorized(websocket):
            await self._refuse(websocket, ErrorCode.UNAUTHORIZED, "a valid token is required", CLOSE_POLICY)
            return
        if len(self.sessions) >= self.config.max_sessions:
            message = f"the server holds its maximum of {self.config.max_sessions} sessions; retry later"
            extra = {"active_sessions": len(self.sessions), "max_sessions": self.config.max_sessions}
            await self._refuse(websocket, ErrorCode.CAPACITY_REACHED, message, CLOSE_TRY_LATER, **extra)
            return
        session = Session(self.config.env_ids, self.cheap_pool)
        self.sessions[session.id] = session
        close_code: int | None = CLOSE_NORMAL
        try:
            close_code = await self._serve(websocket, session)
        finally:
            try:
                await session.close()  # counted (health, capacity) until its env is freed
            finally:
                del self.sessions[session.id]
            if close_code is not None:
                with contextlib.suppress(Exception):
                    await websocket.close(close_code)

    async def _serve(self, websocket: WebSocket, session: Session) -> int | None:
        """Answer messages; the close code to send, or None when the client has gone."""
        limit = self.config.max_frame_bytes
        while True:
            try:
                async with _timeout(self.config.idle_timeout):
                    event = await websocket.receive()
            except TimeoutError:
                notice = f"idle for {self.config.idle_timeout:g} s: session closed"
                return (
                    CLOSE_NORMAL if await self._send(websocket, error_frame(ErrorCode.SESSION_ERROR, notice)) else None
                )
            if event["type"] == "websocket.disconnect":
                return None
            raw = event.get("text")
            if raw is None:
                raw = event.get("bytes") or b""
            if len(raw) > limit:
                reply = error_frame(ErrorCode.VALIDATION_ERROR, f"frame of {len(raw):,} bytes is over {limit:,}")
            else:
                try:
                    message = parse_message(raw)
                    if message.type == "close":
                        return CLOSE_NORMAL
                    reply = await session.handle(message)
                except ProtocolError as exc:
                    reply = error_frame(exc.code, str(exc))
            if not await self._send(websocket, reply):
                return None
            if session.ended:  # an infrastructure fault: the env is not trusted any more
                return CLOSE_INTERNAL

    @staticmethod
    async def _send(websocket: WebSocket, frame: dict[str, Any]) -> bool:
        """Send ``frame``; False when the client has gone."""
        try:
            await websocket.send_text(dumps(frame))
        except Exception:  # noqa: BLE001 - the client went away mid-send
            return False
        return True

    async def _refuse(self, websocket: WebSocket, code: ErrorCode, message: str, close: int, **extra: Any) -> None:
        with contextlib.suppress(Exception):
            await websocket.send_text(dumps(error_frame(code, message, **extra)))
            await websocket.close(close)

    async def health(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "status": "healthy",
                "active_sessions": len(self.sessions),
                "max_sessions": self.config.max_sessions,
                "env_ids": list(self.config.env_ids),
            }
        )

    async def schema(self, request: Request) -> JSONResponse:
        if not self.authorized(request):
            return JSONResponse(error_frame(ErrorCode.UNAUTHORIZED, "a valid token is required")["data"], 401)
        return JSONResponse(schemas())

    async def metadata_route(self, request: Request) -> JSONResponse:
        if not self.authorized(request):
            return JSONResponse(error_frame(ErrorCode.UNAUTHORIZED, "a valid token is required")["data"], 401)
        return JSONResponse(await self.metadata.get(self.config, len(self.sessions)))

    async def shutdown(self) -> None:
        """Close every open session's env (the server is stopping), then the cheap sessions' pool."""
        for session in list(self.sessions.values()):
            await session.close()
        self.cheap_pool.shutdown(wait=False)


def create_app(config: ServeConfig | Sequence[str]) -> Starlette:
    """The ASGI app serving ``config`` (or a list of env ids with the default limits).

    Example:
        ``uvicorn.run(create_app(["RewardLab/ToolCall-v3"]), host="127.0.0.1", port=8000)``
    """
    if not isinstance(config, ServeConfig):
        config = ServeConfig(tuple(config))
    server = Server(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await server.shutdown()

    routes = [
        WebSocketRoute("/ws", server.websocket),
        Route("/health", server.health),
        Route("/schema", server.schema),
        Route("/metadata", server.metadata_route),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app
