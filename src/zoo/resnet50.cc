// ResNet-50 (torchvision v1.5: stride on the 3x3 conv), as PyTorch exports it in eval mode with
// BatchNormalization left unfolded.
#include <string>

#include "zoo/conv_net.h"
#include "zoo/models.h"

namespace hi::zoo {
namespace {

struct Stage {
  int64_t width;  // channels of the 1x1 and 3x3 convs; the block outputs 4x this
  int64_t blocks;
  int64_t stride;  // of the first block's 3x3 conv and downsample
};
constexpr Stage kStages[] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
constexpr int64_t kExpansion = 4;

// torchvision Bottleneck: conv1x1-bn-relu, conv3x3(stride)-bn-relu, conv1x1-bn, + shortcut, relu.
// The module's one ReLU is called three times, so the exporter scopes them relu, relu_1, relu_2.
FeatureMap bottleneck(ConvNetBuilder& net, const FeatureMap& x, const std::string& prefix, int64_t width,
                      int64_t stride, bool downsample) {
  const std::string scope = torch_scope(prefix);
  FeatureMap y =
      net.relu(net.batch_norm(net.conv(x, prefix + ".conv1", width, 1, 1), prefix + ".bn1"), scope + "/relu");
  y = net.relu(net.batch_norm(net.conv(y, prefix + ".conv2", width, 3, stride), prefix + ".bn2"), scope + "/relu_1");
  y = net.batch_norm(net.conv(y, prefix + ".conv3", width * kExpansion, 1, 1), prefix + ".bn3");
  const FeatureMap shortcut = downsample
                                  ? net.batch_norm(net.conv(x, prefix + ".downsample.0", width * kExpansion, 1, stride),
                                                   prefix + ".downsample.1")
                                  : x;
  return net.relu(net.add(y, shortcut, scope), scope + "/relu_2");
}

}  // namespace

Status build_resnet50(GraphBuilder& g, const ZooOptions& o) {
  HI_RETURN_IF_ERROR(check_image_options(o));
  ConvNetBuilder net(g);
  FeatureMap x = net.input(batch_dim(o), 3, o.image_size);
  x = net.relu(net.batch_norm(net.conv(x, "conv1", 64, 7, 2), "bn1"), "/relu");
  x = net.max_pool(x, "/maxpool", 3, 2, 1);
  for (int s = 0; s < 4; ++s) {
    const Stage& stage = kStages[s];
    for (int64_t b = 0; b < stage.blocks; ++b) {
      const std::string prefix = "layer" + std::to_string(s + 1) + "." + std::to_string(b);
      x = bottleneck(net, x, prefix, stage.width, b == 0 ? stage.stride : 1, b == 0);
    }
  }
  net.classifier(x, "/avgpool", "fc", o.classes, batch_dim(o), "logits");
  return Status::ok();
}

}  // namespace hi::zoo
