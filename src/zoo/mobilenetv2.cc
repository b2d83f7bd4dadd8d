// MobileNetV2 (torchvision, width 1.0): inverted residuals with depthwise 3x3 convs and ReLU6 as
// Clip(0, 6), as PyTorch exports it in eval mode with BatchNormalization left unfolded.
#include <string>

#include "zoo/conv_net.h"
#include "zoo/models.h"

namespace hi::zoo {
namespace {

struct Setting {
  int64_t expansion;  // t
  int64_t channels;   // c
  int64_t repeats;    // n
  int64_t stride;     // s, of the first block
};
constexpr Setting kSettings[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
constexpr int64_t kStemChannels = 32;
constexpr int64_t kLastChannels = 1280;

// torchvision Conv2dNormActivation: "<prefix>.0" conv, "<prefix>.1" BN, "<prefix>.2" ReLU6.
FeatureMap conv_bn_relu6(ConvNetBuilder& net, const FeatureMap& x, const std::string& prefix, int64_t out_channels,
                         int64_t kernel, int64_t stride, int64_t groups = 1) {
  const FeatureMap y = net.batch_norm(net.conv(x, prefix + ".0", out_channels, kernel, stride, groups), prefix + ".1");
  return net.relu6(y, torch_scope(prefix + ".2"));
}

// torchvision InvertedResidual: [1x1 expand], 3x3 depthwise, 1x1 project + BN, residual Add when
// the shape is kept.
FeatureMap inverted_residual(ConvNetBuilder& net, const FeatureMap& x, const std::string& prefix, int64_t out_channels,
                             int64_t stride, int64_t expansion) {
  const int64_t hidden = x.channels * expansion;
  const std::string conv = prefix + ".conv.";
  FeatureMap y = x;
  int layer = 0;
  if (expansion != 1) y = conv_bn_relu6(net, y, conv + std::to_string(layer++), hidden, 1, 1);
  y = conv_bn_relu6(net, y, conv + std::to_string(layer++), hidden, 3, stride, hidden);
  y = net.conv(y, conv + std::to_string(layer++), out_channels, 1, 1);
  y = net.batch_norm(y, conv + std::to_string(layer));
  if (stride == 1 && x.channels == out_channels) y = net.add(x, y, torch_scope(prefix));
  return y;
}

}  // namespace

Status build_mobilenetv2(GraphBuilder& g, const ZooOptions& o) {
  HI_RETURN_IF_ERROR(check_image_options(o));
  ConvNetBuilder net(g);
  FeatureMap x = net.input(batch_dim(o), 3, o.image_size);
  x = conv_bn_relu6(net, x, "features.0", kStemChannels, 3, 2);
  int index = 1;
  for (const Setting& s : kSettings) {
    for (int64_t i = 0; i < s.repeats; ++i) {
      x = inverted_residual(net, x, "features." + std::to_string(index++), s.channels, i == 0 ? s.stride : 1,
                            s.expansion);
    }
  }
  x = conv_bn_relu6(net, x, "features." + std::to_string(index), kLastChannels, 1, 1);
  net.classifier(x, "", "classifier.1", o.classes, batch_dim(o), "logits");
  return Status::ok();
}

}  // namespace hi::zoo
