// Every message Strata speaks.
#pragma once

#include "server/kafka/messages/alter_configs.h"
#include "server/kafka/messages/api_versions.h"
#include "server/kafka/messages/create_partitions.h"
#include "server/kafka/messages/create_topics.h"
#include "server/kafka/messages/delete_records.h"
#include "server/kafka/messages/delete_topics.h"
#include "server/kafka/messages/describe_cluster.h"
#include "server/kafka/messages/describe_configs.h"
#include "server/kafka/messages/fetch.h"
#include "server/kafka/messages/list_offsets.h"
#include "server/kafka/messages/metadata.h"
#include "server/kafka/messages/produce.h"
