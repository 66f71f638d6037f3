// Everything a baton user includes.
#pragma once

#include "baton/api/context.hpp"
#include "baton/api/node.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/qos.hpp"
#include "baton/api/subscription.hpp"
