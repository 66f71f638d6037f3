// Everything a baton user includes.
#pragma once

#include "baton/api/client.hpp"
#include "baton/api/context.hpp"
#include "baton/api/executor.hpp"
#include "baton/api/guard_condition.hpp"
#include "baton/api/multi_threaded_executor.hpp"
#include "baton/api/node.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/qos.hpp"
#include "baton/api/service.hpp"
#include "baton/api/single_threaded_executor.hpp"
#include "baton/api/subscription.hpp"
#include "baton/api/wait_set.hpp"
