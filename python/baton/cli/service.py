"""``baton service list | call`` (as ``ros2 service``)."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from ._common import add_format, cli_context, emit_json, is_hidden, service_completer, snapshot


def register(sub: Any) -> None:
    svc = sub.add_parser(
        "service", help="inspect and call services", description="Services (as ros2 service)."
    )
    verbs = svc.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser("list", help="list the services", description="List the services.")
    p.add_argument("-t", "--show-types", action="store_true", help="show each service's type")
    p.add_argument("-c", "--count-services", action="store_true", help="only print the number")
    p.add_argument("-a", "--include-hidden-services", action="store_true", help="list hidden ones")
    add_format(p)
    p.set_defaults(func=cmd_list)
    p = verbs.add_parser(
        "call",
        help="call a service",
        description="Send one request to a byte service (one made with baton's Python API) and "
        "print the response. The request is text (UTF-8), or hex with --hex. Limitation: typed "
        "C++ services (Service<S> with Request / Response structs) cannot be called from here "
        "yet: their topics' type identity includes the structs' layout, so the call is refused "
        "with a type-mismatch error (exit 4); call them from C++ (node.client<S>).",
    )
    p.add_argument("service_name", help="service name, e.g. /add").completer = service_completer
    p.add_argument("request", nargs="?", default="", help="request payload (text)")
    p.add_argument("--srv-type", help="service type (default: the one discovery reports)")
    p.add_argument("--hex", action="store_true", help="the request is hex bytes")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait (default 5)")
    p.add_argument("-r", "--rate", type=float, default=0.0, help="repeat at this rate (Hz)")
    add_format(p)
    p.set_defaults(func=cmd_call)


def cmd_list(args: Any) -> int:
    services = snapshot()["services"]
    if not args.include_hidden_services:
        services = [s for s in services if not is_hidden(s["name"])]
    if args.format == "json":
        emit_json(len(services) if args.count_services else services)
    elif args.count_services:
        print(len(services))
    else:
        for s in services:
            print(f"{s['name']} [{', '.join(s['types'])}]" if args.show_types else s["name"])
    return 0


def _decode(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": raw.hex()}
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_call(args: Any) -> int:
    import baton

    name = baton._baton.resolve_topic_name(args.service_name, "/", "")
    if not name:
        raise baton.InvalidNameError(f"'{args.service_name}' is not a valid service name")
    srv_type = args.srv_type
    if srv_type is None:
        servers = [
            e for e in snapshot()["endpoints"] if e["name"] == name and e["kind"] == "service"
        ]
        if not servers:
            raise baton.ServiceUnavailableError(f"service '{name}' is not available")
        srv_type = servers[0]["type"]
    node = baton.Node(cli_context(), f"_baton_cli_call_{os.getpid()}")
    try:
        client = node.client(name, srv_type).create()
    except baton.TypeMismatchError as e:
        raise baton.TypeMismatchError(
            f"service '{name}' ({srv_type}) is not a byte service (a typed C++ service?): {e}",
            hint="`baton service call` talks to byte services (baton's Python API); typed C++ "
            "services (Service<S>) cannot be called from the CLI or Python yet: use a C++ client "
            "(node.client<S>)",
        ) from None
    request = bytes.fromhex(args.request) if args.hex else args.request.encode()
    if not client.wait_for_service(args.timeout):
        raise baton.ServiceUnavailableError(
            f"service '{name}' did not appear in {args.timeout:g} s"
        )
    while True:
        if args.format == "table":
            print(f"requester: making request: {request!r}\n")
        start = time.monotonic()
        response = client.call(request, args.timeout)
        elapsed = time.monotonic() - start
        if args.format == "json":
            emit_json(
                {
                    "service": name,
                    "type": srv_type,
                    "response": _decode(response),
                    "elapsed": elapsed,
                }
            )
        else:
            print("response:")
            decoded = _decode(response)
            print(decoded if isinstance(decoded, str) else json.dumps(decoded))
            print(file=sys.stdout, flush=True)
        if args.rate <= 0:
            return 0
        time.sleep(max(0.0, 1.0 / args.rate - elapsed))
