#include "py_value.hpp"

#include <nanobind/stl/string.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace nb = nanobind;

namespace baton::py {
namespace {

using ros2::ArrayKind;
using ros2::BaseType;
using ros2::FieldDescription;
using ros2::MessageDescription;
using ros2::Value;

// ---------------------------------------------------------------------------------------------
// Value -> Python

// One value of primitive type `t` at `p` (primitive_size(t) bytes, little-endian).
nb::object primitive(BaseType t, const std::uint8_t* p) {
  auto get = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (t) {
    case BaseType::Bool:
      return nb::bool_(*p != 0);
    case BaseType::Byte:
    case BaseType::Char:
    case BaseType::UInt8:
      return nb::int_(*p);
    case BaseType::Int8:
      return nb::int_(get(std::int8_t{}));
    case BaseType::Int16:
      return nb::int_(get(std::int16_t{}));
    case BaseType::UInt16:
      return nb::int_(get(std::uint16_t{}));
    case BaseType::Int32:
      return nb::int_(get(std::int32_t{}));
    case BaseType::UInt32:
      return nb::int_(get(std::uint32_t{}));
    case BaseType::Int64:
      return nb::int_(get(std::int64_t{}));
    case BaseType::UInt64:
      return nb::int_(get(std::uint64_t{}));
    case BaseType::Float32:
      return nb::float_(get(float{}));
    case BaseType::Float64:
      return nb::float_(get(double{}));
    default:
      return nb::none();
  }
}

nb::object wide(const std::u16string& s) {
  PyObject* o = PyUnicode_DecodeUTF16(reinterpret_cast<const char*>(s.data()),
                                      static_cast<Py_ssize_t>(s.size() * 2), "replace", nullptr);
  if (o == nullptr) throw nb::python_error();
  return nb::steal(o);
}

bool is_byte(BaseType t) {
  return t == BaseType::UInt8 || t == BaseType::Char || t == BaseType::Byte;
}

// One element of field `f` (a scalar, or one element of an array of strings / messages).
nb::object element(const FieldDescription& f, const Value& v, const ValueStyle& style) {
  if (f.type == BaseType::String) {
    PyObject* o = PyUnicode_DecodeUTF8(v.str.data(), static_cast<Py_ssize_t>(v.str.size()),
                                       "replace");  // a peer's bytes need not be UTF-8
    if (o == nullptr) throw nb::python_error();
    return nb::steal(o);
  }
  if (f.type == BaseType::WString) return wide(v.wstr);
  if (f.type == BaseType::Nested) {
    if (f.nested == nullptr) raise_error(style.error_kind, "field '" + f.name + "' has no type");
    return value_to_python(*f.nested, v, style);
  }
  if (v.bytes().size() < ros2::primitive_size(f.type)) {
    raise_error(style.error_kind, "field '" + f.name + "' is shorter than its type");
  }
  return primitive(f.type, v.bytes().data());
}

// A field's value: scalars as Python scalars, byte arrays as ValueStyle says, other primitive
// arrays and arrays of strings / messages as lists.
nb::object field_object(const FieldDescription& f, const Value& v, const ValueStyle& style) {
  if (f.array == ArrayKind::None) return element(f, v, style);
  const auto bytes = v.bytes();
  if (is_byte(f.type) && style.byte_arrays == ByteArrays::Bytes) {
    return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  if (is_byte(f.type) && style.byte_arrays == ByteArrays::View) {
    PyObject* o =
        PyMemoryView_FromMemory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())),
                                static_cast<Py_ssize_t>(bytes.size()), PyBUF_READ);
    if (o == nullptr) throw nb::python_error();
    nb::object view = nb::steal(o);
    if (style.views != nullptr) style.views->push_back(view);
    return view;
  }
  nb::list out;
  if (ros2::is_primitive(f.type)) {
    const std::size_t n = ros2::primitive_size(f.type);
    for (std::size_t off = 0; off + n <= bytes.size(); off += n) {
      out.append(primitive(f.type, bytes.data() + off));
    }
    return out;
  }
  for (const Value& item : v.items) out.append(element(f, item, style));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Python -> Value

[[noreturn]] void mismatch(const std::string& path, const std::string& what) {
  raise_error("TypeMismatch", "field '" + path + "': " + what);
}

std::string type_name_of(nb::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

// Appends the little-endian bytes of scalar `obj` as primitive `t` to `out`.
void pack_scalar(BaseType t, nb::handle obj, const std::string& path, std::vector<uint8_t>& out) {
  auto put = [&out]<typename T>(T v) {
    const auto at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &v, sizeof(T));
  };
  if (t == BaseType::Float32 || t == BaseType::Float64) {
    if (!PyFloat_Check(obj.ptr()) && !PyLong_Check(obj.ptr()) &&
        !PyObject_HasAttrString(obj.ptr(), "__float__")) {
      mismatch(path, "expected a number, got " + type_name_of(obj));
    }
    const double d = PyFloat_AsDouble(obj.ptr());
    if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
    if (t == BaseType::Float32) {
      put(static_cast<float>(d));
    } else {
      put(d);
    }
    return;
  }
  if (t == BaseType::Bool) {
    const int b = PyObject_IsTrue(obj.ptr());
    if (b < 0) throw nb::python_error();
    put(static_cast<uint8_t>(b));
    return;
  }
  if (PyBytes_Check(obj.ptr()) && PyBytes_Size(obj.ptr()) == 1 && is_byte(t)) {
    put(static_cast<uint8_t>(PyBytes_AsString(obj.ptr())[0]));  // b"x" for a char
    return;
  }
  if (!PyIndex_Check(obj.ptr())) mismatch(path, "expected an integer, got " + type_name_of(obj));
  nb::object index = nb::steal(PyNumber_Index(obj.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (s == -1 && PyErr_Occurred()) throw nb::python_error();
  unsigned long long u = 0;
  if (overflow > 0) {
    u = PyLong_AsUnsignedLongLong(index.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      mismatch(path, "integer out of range for " + std::string(ros2::to_string(t)));
    }
  } else if (overflow < 0) {
    mismatch(path, "integer out of range for " + std::string(ros2::to_string(t)));
  }
  auto in = [&](long long lo, unsigned long long hi) {
    if (overflow > 0) return t == BaseType::UInt64 && u <= hi;
    return s >= lo && (s < 0 || static_cast<unsigned long long>(s) <= hi);
  };
  bool ok = false;
  switch (t) {
    case BaseType::Byte:  // ROS 1's byte is int8, ROS 2's an octet: take either range
    case BaseType::Char:
      ok = in(-128, 255);
      if (ok) put(static_cast<uint8_t>(s));
      break;
    case BaseType::Int8:
      ok = in(-128, 127);
      if (ok) put(static_cast<int8_t>(s));
      break;
    case BaseType::UInt8:
      ok = in(0, 255);
      if (ok) put(static_cast<uint8_t>(s));
      break;
    case BaseType::Int16:
      ok = in(-32768, 32767);
      if (ok) put(static_cast<int16_t>(s));
      break;
    case BaseType::UInt16:
      ok = in(0, 65535);
      if (ok) put(static_cast<uint16_t>(s));
      break;
    case BaseType::Int32:
      ok = in(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
      if (ok) put(static_cast<int32_t>(s));
      break;
    case BaseType::UInt32:
      ok = in(0, std::numeric_limits<uint32_t>::max());
      if (ok) put(static_cast<uint32_t>(s));
      break;
    case BaseType::Int64:
      ok = overflow == 0;
      if (ok) put(static_cast<int64_t>(s));
      break;
    case BaseType::UInt64:
      ok = overflow > 0 || s >= 0;
      if (ok) put(overflow > 0 ? u : static_cast<uint64_t>(s));
      break;
    default:
      break;
  }
  if (!ok) mismatch(path, "integer out of range for " + std::string(ros2::to_string(t)));
}

// Whether a buffer's element format fits primitive `t` (numpy's struct-style codes).
bool format_fits(BaseType t, const Py_buffer& b) {
  const std::uint32_t size = ros2::primitive_size(t);
  if (static_cast<std::uint32_t>(b.itemsize) != size) return false;
  if (size == 1) return true;  // bytes, bytearray, uint8 / int8 arrays
  const char* f = b.format != nullptr ? b.format : "B";
  while (*f == '<' || *f == '=' || *f == '@') ++f;  // native is little-endian here
  const bool floating = *f == 'f' || *f == 'd' || *f == 'e';
  const bool want_float = t == BaseType::Float32 || t == BaseType::Float64;
  return floating == want_float && f[1] == '\0';
}

std::string count_rule(const FieldDescription& f, std::size_t n) {
  if (f.array == ArrayKind::Fixed && n != f.array_size) {
    return "has " + std::to_string(n) + " elements, the type fixes " + std::to_string(f.array_size);
  }
  if (f.array == ArrayKind::Bounded && n > f.array_size) {
    return "has " + std::to_string(n) + " elements, the type allows at most " +
           std::to_string(f.array_size);
  }
  return "";
}

void fill_message(const MessageDescription& d, nb::handle obj, const std::string& path, Value& out,
                  std::vector<std::unique_ptr<HostBuffer>>& keep);

Value element_from(const FieldDescription& f, nb::handle obj, const std::string& path,
                   std::vector<std::unique_ptr<HostBuffer>>& keep) {
  Value v;
  if (f.type == BaseType::String) {
    if (PyUnicode_Check(obj.ptr())) {
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
      if (s == nullptr) throw nb::python_error();
      v.str.assign(s, static_cast<std::size_t>(n));
    } else if (PyBytes_Check(obj.ptr())) {
      v.str.assign(PyBytes_AsString(obj.ptr()), static_cast<std::size_t>(PyBytes_Size(obj.ptr())));
    } else {
      mismatch(path, "expected a str, got " + type_name_of(obj));
    }
    if (f.string_bound != 0 && v.str.size() > f.string_bound) {
      mismatch(path, "longer than the type's bound of " + std::to_string(f.string_bound));
    }
    return v;
  }
  if (f.type == BaseType::WString) {
    if (!PyUnicode_Check(obj.ptr())) mismatch(path, "expected a str, got " + type_name_of(obj));
    nb::object enc = nb::steal(PyUnicode_AsUTF16String(obj.ptr()));
    if (!enc.is_valid()) throw nb::python_error();
    const char* s = PyBytes_AsString(enc.ptr()) + 2;  // after the byte order mark
    const auto n = static_cast<std::size_t>(PyBytes_Size(enc.ptr()) - 2) / 2;
    v.wstr.resize(n);
    std::memcpy(v.wstr.data(), s, n * 2);
    return v;
  }
  if (f.type == BaseType::Nested) {
    if (f.nested == nullptr) mismatch(path, "the field has no type");
    v = ros2::default_value(*f.nested);
    fill_message(*f.nested, obj, path, v, keep);
    return v;
  }
  pack_scalar(f.type, obj, path, v.raw);
  return v;
}

Value field_from(const FieldDescription& f, nb::handle obj, const std::string& path,
                 std::vector<std::unique_ptr<HostBuffer>>& keep) {
  if (f.array == ArrayKind::None) return element_from(f, obj, path, keep);
  if (PyUnicode_Check(obj.ptr())) mismatch(path, "expected a sequence, got str");
  Value v;
  if (ros2::is_primitive(f.type) && PyObject_CheckBuffer(obj.ptr())) {
    auto buffer = std::make_unique<HostBuffer>(obj);
    if (format_fits(f.type, buffer->view())) {
      const std::size_t n = buffer->size() / ros2::primitive_size(f.type);
      if (auto why = count_rule(f, n); !why.empty()) mismatch(path, why);
      v.view =
          std::span<const uint8_t>(static_cast<const uint8_t*>(buffer->data()), buffer->size());
      if (v.view.empty()) v.view = {};  // an empty array: nothing to view
      keep.push_back(std::move(buffer));
      return v;
    }
  }
  nb::object seq = nb::steal(PySequence_Fast(obj.ptr(), "expected a sequence"));
  if (!seq.is_valid()) {
    PyErr_Clear();
    mismatch(path, "expected a sequence, got " + type_name_of(obj));
  }
  const auto n = static_cast<std::size_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
  if (auto why = count_rule(f, n); !why.empty()) mismatch(path, why);
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (ros2::is_primitive(f.type)) {
      pack_scalar(f.type, items[i], at, v.raw);
    } else {
      v.items.push_back(element_from(f, items[i], at, keep));
    }
  }
  return v;
}

// ROS 1's time / duration (and builtin_interfaces Time / Duration) may be given as seconds.
bool fill_seconds(const MessageDescription& d, nb::handle obj, Value& out) {
  if (d.fields.size() != 2 || !(PyFloat_Check(obj.ptr()) || PyLong_Check(obj.ptr()))) return false;
  const int s = d.field_index(d.fields[0].name == "secs" ? "secs" : "sec");
  const int ns = d.field_index(d.fields[1].name == "nsecs" ? "nsecs" : "nanosec");
  if (s != 0 || ns != 1) return false;
  const double t = PyFloat_AsDouble(obj.ptr());
  if (t == -1.0 && PyErr_Occurred()) throw nb::python_error();
  const double whole = std::floor(t);
  nb::int_ secs(static_cast<long long>(whole));
  nb::int_ nsecs(static_cast<long long>(std::llround((t - whole) * 1e9)));
  out.items[0].raw.clear();
  out.items[1].raw.clear();
  pack_scalar(d.fields[0].type, secs, d.fields[0].name, out.items[0].raw);
  pack_scalar(d.fields[1].type, nsecs, d.fields[1].name, out.items[1].raw);
  return true;
}

void fill_message(const MessageDescription& d, nb::handle obj, const std::string& path, Value& out,
                  std::vector<std::unique_ptr<HostBuffer>>& keep) {
  if (obj.is_none()) return;
  if (fill_seconds(d, obj, out)) return;
  const bool mapping = PyDict_Check(obj.ptr()) || PyMapping_Check(obj.ptr());
  if (mapping && !PyDict_Check(obj.ptr()) && PySequence_Check(obj.ptr())) {
    mismatch(path.empty() ? d.name : path, "expected a dict of fields, got " + type_name_of(obj));
  }
  if (mapping) {
    nb::object keys = nb::steal(PyMapping_Keys(obj.ptr()));
    if (!keys.is_valid()) throw nb::python_error();
    for (nb::handle key : keys) {
      const std::string name = nb::cast<std::string>(nb::str(key));
      if (d.field_index(name) < 0) {
        mismatch(path.empty() ? name : path + "." + name, d.name + " has no such field");
      }
    }
  }
  for (std::size_t i = 0; i < d.fields.size(); ++i) {
    const FieldDescription& f = d.fields[i];
    nb::object value;
    if (mapping) {
      PyObject* v = PyMapping_GetItemString(obj.ptr(), f.name.c_str());
      if (v == nullptr) {
        PyErr_Clear();
        continue;
      }
      value = nb::steal(v);
    } else {
      if (!PyObject_HasAttrString(obj.ptr(), f.name.c_str())) continue;
      value = nb::steal(PyObject_GetAttrString(obj.ptr(), f.name.c_str()));
      if (!value.is_valid()) throw nb::python_error();
    }
    if (value.is_none()) continue;
    out.items[i] = field_from(f, value, path.empty() ? f.name : path + "." + f.name, keep);
  }
}

}  // namespace

nb::object value_to_python(const MessageDescription& d, const Value& v, const ValueStyle& style) {
  if (v.items.size() != d.fields.size()) {
    raise_error(style.error_kind, d.full_name() + ": value has " + std::to_string(v.items.size()) +
                                      " fields, the type " + std::to_string(d.fields.size()));
  }
  nb::dict out;
  for (std::size_t i = 0; i < d.fields.size(); ++i) {
    out[nb::str(d.fields[i].name.c_str())] = field_object(d.fields[i], v.items[i], style);
  }
  return out;
}

Value value_from_python(const MessageDescription& d, nb::handle obj,
                        std::vector<std::unique_ptr<HostBuffer>>& keep) {
  Value out = ros2::default_value(d);
  fill_message(d, obj, "", out, keep);
  return out;
}

}  // namespace baton::py
