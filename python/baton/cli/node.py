"""``baton node list | info`` (as ``ros2 node``)."""

from __future__ import annotations

from typing import Any

from ._common import add_format, emit_json, is_hidden, node_completer, snapshot


def register(sub: Any) -> None:
    node = sub.add_parser("node", help="inspect nodes", description="Nodes (as ros2 node).")
    verbs = node.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser("list", help="list the nodes", description="List the nodes.")
    p.add_argument("-a", "--all", action="store_true", help="also list hidden nodes ('_' names)")
    p.add_argument("-c", "--count-nodes", action="store_true", help="only print the number")
    add_format(p)
    p.set_defaults(func=cmd_list)
    p = verbs.add_parser(
        "info",
        help="print a node's endpoints",
        description="Print a node's publishers, subscriptions, services, clients.",
    )
    p.add_argument(
        "node_name", help="fully qualified node name, e.g. /talker"
    ).completer = node_completer
    p.add_argument("-a", "--include-hidden", action="store_true", help="show hidden topics too")
    add_format(p)
    p.set_defaults(func=cmd_info)


def cmd_list(args: Any) -> int:
    nodes = snapshot()["nodes"]
    if not args.all:
        nodes = [n for n in nodes if not is_hidden(n["fqn"])]
    nodes.sort(key=lambda n: n["fqn"])
    if args.format == "json":
        emit_json(len(nodes) if args.count_nodes else nodes)
    elif args.count_nodes:
        print(len(nodes))
    else:
        for n in nodes:
            print(n["fqn"])
    return 0


def cmd_info(args: Any) -> int:
    import baton

    name = args.node_name if args.node_name.startswith("/") else "/" + args.node_name
    snap = snapshot()
    matches = [n for n in snap["nodes"] if n["fqn"] == name]
    if not matches:
        raise baton.BatonError(
            f"unable to find node '{name}'",
            code="NodeNotFound",
            hint="check the name with `baton node list -a` and the BATON_NAMESPACE",
        )
    eps = [e for e in snap["endpoints"] if e["node"] == name]
    if not args.include_hidden:
        eps = [e for e in eps if not is_hidden(e["name"])]
    groups = {
        "subscribers": [e for e in eps if e["kind"] == "subscription"],
        "publishers": [e for e in eps if e["kind"] == "publisher"],
        "service_servers": [e for e in eps if e["kind"] == "service"],
        "service_clients": [e for e in eps if e["kind"] == "client"],
    }
    if args.format == "json":
        emit_json(
            {
                "node": matches[0],
                **{
                    k: [{"name": e["name"], "type": e["type"]} for e in v]
                    for k, v in groups.items()
                },
            }
        )
        return 0
    if len(matches) > 1:
        print(
            f'There are {len(matches)} nodes in the graph with the exact name "{name}". '
            "You are seeing information about only one of them."
        )
    print(name)
    titles = {
        "subscribers": "Subscribers",
        "publishers": "Publishers",
        "service_servers": "Service Servers",
        "service_clients": "Service Clients",
    }
    for key, title in titles.items():
        print(f"  {title}:")
        for e in sorted(groups[key], key=lambda e: e["name"]):
            print(f"    {e['name']}: {e['type']}")
    return 0
