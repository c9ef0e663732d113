"""The three summaries the hparams plugin reads (tensorboard/plugins/hparams: plugin_data.proto, api.proto):
an Experiment listing hyperparameters and metrics, a SessionStartInfo with this run's values, and a
SessionEndInfo marking it finished."""
from . import _protobuf as pb
from ._summaries import _metadata, _value, make_np, summary

_TYPE_STRING, _TYPE_BOOL, _TYPE_FLOAT64 = 1, 2, 3  # hparams api.proto DataType
_STATUS_SUCCESS = 1


def _struct_value(kind, value):
    """google.protobuf.Value: number_value=2, string_value=3, bool_value=4."""
    field = {"number": 2, "string": 3, "bool": 4}[kind]
    if kind == "number":
        return pb.double_field(field, value)
    if kind == "bool":
        return pb.varint_field(field, value)
    return pb.bytes_field(field, value)


def _classify(value):
    # bool is an int, so True is logged as the number 1.0, as PyTorch does
    import tandem
    if isinstance(value, (int, float)):
        return "number", float(value), _TYPE_FLOAT64
    if isinstance(value, str):
        return "string", value, _TYPE_STRING
    if isinstance(value, tandem.Tensor):
        return "number", float(make_np(value).reshape(-1)[0]), _TYPE_FLOAT64
    raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")


def _plugin_summary(tag, field, message):
    content = pb.varint_field(1, 0) + pb.bytes_field(field, message)  # HParamsPluginData{version=1, <oneof>}
    return summary(_value(tag, _metadata("hparams", content)))


def hparams_summaries(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """Returns (experiment, session_start_info, session_end_info) as encoded Summary messages."""
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for key, domain in hparam_domain_discrete.items():
        if (key not in hparam_dict or not isinstance(domain, list)
                or not all(isinstance(d, type(hparam_dict[key])) for d in domain)):
            raise TypeError(f"parameter: hparam_domain_discrete[{key}] should be a list of same type as "
                            f"hparam_dict[{key}].")
    infos, start_hparams = b"", b""
    for key, value in hparam_dict.items():
        if value is None:
            continue
        kind, value, data_type = _classify(value)
        # SessionStartInfo.hparams is map<string, Value>: entries {key=1, value=2} in field 1
        start_hparams += pb.bytes_field(1, pb.bytes_field(1, key) + pb.bytes_field(2, _struct_value(kind, value)))
        info = pb.bytes_field(1, key) + pb.varint_field(4, data_type)  # HParamInfo{name=1, type=4}
        if key in hparam_domain_discrete:  # domain_discrete=5: ListValue{values=1}
            values = b"".join(pb.bytes_field(1, _struct_value(kind, d)) for d in hparam_domain_discrete[key])
            info += pb.bytes_field(5, values)
        infos += pb.bytes_field(4, info)  # Experiment.hparam_infos=4
    # Experiment.metric_infos=5: MetricInfo{name=1: MetricName{tag=2}}
    metrics = b"".join(pb.bytes_field(5, pb.bytes_field(1, pb.bytes_field(2, k))) for k in metric_dict)
    experiment = _plugin_summary("_hparams_/experiment", 2, infos + metrics)
    start = _plugin_summary("_hparams_/session_start_info", 3, start_hparams)
    end = _plugin_summary("_hparams_/session_end_info", 4, pb.varint_field(1, _STATUS_SUCCESS))
    return experiment, start, end
