// ParamValue <-> XmlRpcValue (xmlrpc_param.hpp).
#include "xmlrpc_param.hpp"

namespace baton::ros1::detail {
namespace {

using XmlRpc::XmlRpcValue;
using Err = Error<RpcError>;
constexpr int MAX_DEPTH = 64;  // xmlrpcpp parsed it already; this only bounds our recursion

Result<ParamValue, Err> convert(XmlRpcValue& v, const std::string& what, int depth) {
  if (depth > MAX_DEPTH)
    return unexpected(Err{RpcError::BadResponse,
                          what + ": nested deeper than " + std::to_string(MAX_DEPTH) + " levels"});
  switch (v.getType()) {
    case XmlRpcValue::TypeBoolean:
      return ParamValue(static_cast<bool>(v));
    case XmlRpcValue::TypeInt:
      return ParamValue(static_cast<int32_t>(static_cast<int>(v)));
    case XmlRpcValue::TypeDouble:
      return ParamValue(static_cast<double>(v));
    case XmlRpcValue::TypeString:
      return ParamValue(static_cast<std::string>(v));
    case XmlRpcValue::TypeArray: {
      ParamValue::List list;
      for (int i = 0; i < v.size(); ++i) {
        auto item = convert(v[i], what, depth + 1);
        if (!item) return unexpected(item.error());
        list.push_back(std::move(*item));
      }
      return ParamValue(std::move(list));
    }
    case XmlRpcValue::TypeStruct: {
      ParamValue::Dict dict;
      for (auto& [key, item] : v) {
        auto converted = convert(item, what, depth + 1);
        if (!converted) return unexpected(converted.error());
        dict.emplace_back(key, std::move(*converted));
      }
      return ParamValue(std::move(dict));
    }
    default:
      return unexpected(Err{RpcError::BadResponse,
                            what + ": " + v.toXml() +
                                " is not a parameter value baton reads (bool, int, double, "
                                "string, list, dict)"});
  }
}

}  // namespace

XmlRpcValue to_xmlrpc(const ParamValue& v) {
  return std::visit(
      [](const auto& x) -> XmlRpcValue {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int32_t>) {
          return XmlRpcValue(static_cast<int>(x));
        } else if constexpr (std::is_same_v<T, ParamValue::List>) {
          XmlRpcValue out;
          out.setSize(static_cast<int>(x.size()));
          for (size_t i = 0; i < x.size(); ++i) out[static_cast<int>(i)] = to_xmlrpc(x[i]);
          return out;
        } else if constexpr (std::is_same_v<T, ParamValue::Dict>) {
          XmlRpcValue out;
          out.begin();  // makes it a struct, empty or not (xmlrpcpp converts on first use)
          for (const auto& [key, item] : x) out[key] = to_xmlrpc(item);
          return out;
        } else {
          return XmlRpcValue(x);
        }
      },
      v.value);
}

Result<ParamValue, Err> from_xmlrpc(const XmlRpcValue& v, const std::string& what) {
  XmlRpcValue copy = v;  // xmlrpcpp's accessors are non-const
  return convert(copy, what, 0);
}

}  // namespace baton::ros1::detail
