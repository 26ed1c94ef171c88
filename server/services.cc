#include "server/services.h"

namespace strata::server {

engine::TopicConfig ConfigView::effective_config(const coordinator::TopicInfo& topic) const {
  auto defaults = topic_defaults();
  auto c = engine::TopicConfig::from_map(topic.configs, *defaults);
  // The catalog validated the overrides when they were stored.
  return c.ok() ? *c : *defaults;
}

TopicDefaultLayers ConfigView::topic_default_layers() const {
  auto dynamic = dynamic_configs();
  const auto& cfg = config();
  return TopicDefaultLayers{dynamic->of(coordinator::BrokerScope::broker(cfg.node_id)),
                            dynamic->cluster_default, cfg.topic_default_props};
}

}  // namespace strata::server
