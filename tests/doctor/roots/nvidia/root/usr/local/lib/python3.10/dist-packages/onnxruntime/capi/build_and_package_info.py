package_name = 'onnxruntime-gpu'
__version__ = '1.18.0'
cuda_version = '11.8'
cudnn_version = '8.9'
