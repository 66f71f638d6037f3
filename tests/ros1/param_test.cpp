// The parameter server through MasterClient on a real roscore: typed values written by baton and
// read by rospy (rospy.get_param) and by `rosparam get`, written by rospy and `rosparam set` and
// read by baton; hasParam, searchParam, deleteParam; keys resolved against the node's namespace.
#include <gtest/gtest.h>

#include "baton/ros1/node.hpp"
#include "ros1_graph_fixture.hpp"

namespace baton::ros1 {
namespace {

using test::GUARD;
using List = ParamValue::List;
using Dict = ParamValue::Dict;

class Ros1Param : public test::Ros1Graph {
 protected:
  // What rospy.get_param(key) gives, as Python's repr.
  std::string rospy_get(const std::string& key) {
    auto peer = core_->peer({"param-get", key});
    EXPECT_EQ(peer->wait(), 0) << peer->output();
    std::istringstream in(peer->output());
    for (std::string line; std::getline(in, line);)
      if (line.rfind("param ", 0) == 0) return line.substr(6);
    return "<no answer: " + peer->output() + ">";
  }
};

TEST_F(Ros1Param, typed_values_round_trip_between_baton_rospy_and_rosparam) {
  auto n = node("baton_params");
  ASSERT_TRUE(n);
  const auto& m = n->master();
  const std::vector<std::pair<std::string, ParamValue>> values = {
      {"/p/int", int32_t{-42}},
      {"/p/double", 2.5},
      {"/p/bool", true},
      {"/p/string", "hello world"},
      {"/p/list", List{int32_t{1}, 2.5, "a", false}},
      {"/p/dict/inner", Dict{{"gain", 0.5},
                             {"ids", List{int32_t{3}, int32_t{4}}},
                             {"name", "x"}}},  // sorted, as read back
  };
  for (const auto& [key, value] : values) ASSERT_TRUE(m.set_param(key, value)) << key;
  for (const auto& [key, value] : values) {
    auto got = m.get_param(key);
    ASSERT_TRUE(got) << got.error().detail;
    EXPECT_EQ(*got, value) << key;
  }
  EXPECT_EQ(rospy_get("/p/int"), "-42");
  EXPECT_EQ(rospy_get("/p/double"), "2.5");
  EXPECT_EQ(rospy_get("/p/bool"), "True");
  EXPECT_EQ(rospy_get("/p/string"), "'hello world'");
  EXPECT_EQ(rospy_get("/p/list"), "[1, 2.5, 'a', False]");
  EXPECT_EQ(rospy_get("/p/dict"), "{'inner': {'gain': 0.5, 'ids': [3, 4], 'name': 'x'}}");
  int status = -1;
  EXPECT_EQ(core_->run({"/usr/bin/rosparam", "get", "/p/int"}, &status), "-42\n");
  EXPECT_EQ(status, 0);

  // Written by rospy and rosparam, read by baton.
  auto setter = core_->peer({"param-set", "/from_rospy", "{'a': [1, 2], 'b': 'text', 'c': 1.25}"});
  ASSERT_EQ(setter->wait(), 0) << setter->output();
  auto got = m.get_param("/from_rospy");
  ASSERT_TRUE(got) << got.error().detail;
  ASSERT_TRUE(got->is<Dict>());
  EXPECT_EQ(*got->find("a"), (ParamValue{List{int32_t{1}, int32_t{2}}}));
  EXPECT_EQ(*got->find("b"), ParamValue("text"));
  EXPECT_EQ(*got->find("c"), ParamValue(1.25));
  EXPECT_EQ(got->find("d"), nullptr);
  core_->run({"/usr/bin/rosparam", "set", "/from_rosparam", "7"}, &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(*m.get_param("/from_rosparam"), ParamValue(int32_t{7}));
  // A whole namespace reads as a dict.
  auto ns = m.get_param("/p/dict");
  ASSERT_TRUE(ns);
  ASSERT_NE(ns->find("inner"), nullptr);
  EXPECT_EQ(*ns->find("inner")->find("name"), ParamValue("x"));
}

TEST_F(Ros1Param, has_search_delete_and_names_relative_to_the_node) {
  auto o = options();
  o.ns = "/a/b";
  auto n = node("baton_params", o);
  ASSERT_TRUE(n);
  const auto& m = n->master();
  ASSERT_TRUE(m.set_param("/a/x", int32_t{1}));
  // Relative and private keys are the node's: "rel" -> /a/b/rel, "~p" -> /a/b/baton_params/p.
  ASSERT_TRUE(m.set_param("rel", "r"));
  ASSERT_TRUE(m.set_param("~p", 3.0));
  EXPECT_EQ(rospy_get("/a/b/rel"), "'r'");
  EXPECT_EQ(rospy_get("/a/b/baton_params/p"), "3.0");
  // searchParam looks from the node's namespace upwards.
  auto found = m.search_param("x");
  ASSERT_TRUE(found) << found.error().detail;
  EXPECT_EQ(*found, std::optional<std::string>("/a/x"));
  auto none = m.search_param("never_set");
  ASSERT_TRUE(none) << none.error().detail;
  EXPECT_FALSE(none->has_value());

  EXPECT_TRUE(*m.has_param("/a/x"));
  ASSERT_TRUE(m.delete_param("/a/x"));
  EXPECT_FALSE(*m.has_param("/a/x"));
  EXPECT_EQ(rospy_get("/a/x"), "missing");
  auto missing = m.get_param("/a/x");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, RpcError::Fault);
  EXPECT_NE(missing.error().detail.find("getParam"), std::string::npos);
  EXPECT_FALSE(m.delete_param("/a/x"));  // nothing to delete: the master's fault, reported

  core_.reset();  // the master gone: a clear error, no hang
  auto down = m.get_param("/a/b/rel");
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().code, RpcError::Unreachable) << down.error().detail;
}

}  // namespace
}  // namespace baton::ros1
