// The zoo's architectures. Each checks the options it uses, then writes its graph; zoo.cc has
// already checked the shared ones (opset, batch) and created the builder.
#pragma once

#include "hipinfer/zoo.h"
#include "zoo/graph_builder.h"

namespace hi::zoo {

// The batch dimension the options ask for: symbolic "batch" or a fixed size.
inline ShapeDim batch_dim(const ZooOptions& o) {
  return o.symbolic_batch ? ShapeDim{-1, "batch"} : ShapeDim{o.batch, {}};
}

Status build_resnet50(GraphBuilder& g, const ZooOptions& o);
Status build_mobilenetv2(GraphBuilder& g, const ZooOptions& o);
Status build_bert(GraphBuilder& g, const ZooOptions& o);

// Shared checks for the image models' options.
Status check_image_options(const ZooOptions& o);

}  // namespace hi::zoo
