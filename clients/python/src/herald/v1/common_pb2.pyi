from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChannelTypeEnum(_message.Message):
    __slots__ = ()
    class ChannelType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CHANNEL_TYPE_UNSPECIFIED: _ClassVar[ChannelTypeEnum.ChannelType]
        in_app: _ClassVar[ChannelTypeEnum.ChannelType]
        email: _ClassVar[ChannelTypeEnum.ChannelType]
        sms: _ClassVar[ChannelTypeEnum.ChannelType]
        chat: _ClassVar[ChannelTypeEnum.ChannelType]
        push: _ClassVar[ChannelTypeEnum.ChannelType]
    CHANNEL_TYPE_UNSPECIFIED: ChannelTypeEnum.ChannelType
    in_app: ChannelTypeEnum.ChannelType
    email: ChannelTypeEnum.ChannelType
    sms: ChannelTypeEnum.ChannelType
    chat: ChannelTypeEnum.ChannelType
    push: ChannelTypeEnum.ChannelType
    def __init__(self) -> None: ...

class StepTypeEnum(_message.Message):
    __slots__ = ()
    class StepType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STEP_TYPE_UNSPECIFIED: _ClassVar[StepTypeEnum.StepType]
        in_app: _ClassVar[StepTypeEnum.StepType]
        email: _ClassVar[StepTypeEnum.StepType]
        sms: _ClassVar[StepTypeEnum.StepType]
        chat: _ClassVar[StepTypeEnum.StepType]
        push: _ClassVar[StepTypeEnum.StepType]
        digest: _ClassVar[StepTypeEnum.StepType]
        trigger: _ClassVar[StepTypeEnum.StepType]
        delay: _ClassVar[StepTypeEnum.StepType]
        custom: _ClassVar[StepTypeEnum.StepType]
    STEP_TYPE_UNSPECIFIED: StepTypeEnum.StepType
    in_app: StepTypeEnum.StepType
    email: StepTypeEnum.StepType
    sms: StepTypeEnum.StepType
    chat: StepTypeEnum.StepType
    push: StepTypeEnum.StepType
    digest: StepTypeEnum.StepType
    trigger: StepTypeEnum.StepType
    delay: StepTypeEnum.StepType
    custom: StepTypeEnum.StepType
    def __init__(self) -> None: ...

class SeverityEnum(_message.Message):
    __slots__ = ()
    class Severity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SEVERITY_UNSPECIFIED: _ClassVar[SeverityEnum.Severity]
        high: _ClassVar[SeverityEnum.Severity]
        medium: _ClassVar[SeverityEnum.Severity]
        low: _ClassVar[SeverityEnum.Severity]
        none: _ClassVar[SeverityEnum.Severity]
    SEVERITY_UNSPECIFIED: SeverityEnum.Severity
    high: SeverityEnum.Severity
    medium: SeverityEnum.Severity
    low: SeverityEnum.Severity
    none: SeverityEnum.Severity
    def __init__(self) -> None: ...

class TimeUnitEnum(_message.Message):
    __slots__ = ()
    class TimeUnit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TIME_UNIT_UNSPECIFIED: _ClassVar[TimeUnitEnum.TimeUnit]
        seconds: _ClassVar[TimeUnitEnum.TimeUnit]
        minutes: _ClassVar[TimeUnitEnum.TimeUnit]
        hours: _ClassVar[TimeUnitEnum.TimeUnit]
        days: _ClassVar[TimeUnitEnum.TimeUnit]
        weeks: _ClassVar[TimeUnitEnum.TimeUnit]
        months: _ClassVar[TimeUnitEnum.TimeUnit]
    TIME_UNIT_UNSPECIFIED: TimeUnitEnum.TimeUnit
    seconds: TimeUnitEnum.TimeUnit
    minutes: TimeUnitEnum.TimeUnit
    hours: TimeUnitEnum.TimeUnit
    days: TimeUnitEnum.TimeUnit
    weeks: TimeUnitEnum.TimeUnit
    months: TimeUnitEnum.TimeUnit
    def __init__(self) -> None: ...

class WeekDayEnum(_message.Message):
    __slots__ = ()
    class WeekDay(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        WEEK_DAY_UNSPECIFIED: _ClassVar[WeekDayEnum.WeekDay]
        monday: _ClassVar[WeekDayEnum.WeekDay]
        tuesday: _ClassVar[WeekDayEnum.WeekDay]
        wednesday: _ClassVar[WeekDayEnum.WeekDay]
        thursday: _ClassVar[WeekDayEnum.WeekDay]
        friday: _ClassVar[WeekDayEnum.WeekDay]
        saturday: _ClassVar[WeekDayEnum.WeekDay]
        sunday: _ClassVar[WeekDayEnum.WeekDay]
    WEEK_DAY_UNSPECIFIED: WeekDayEnum.WeekDay
    monday: WeekDayEnum.WeekDay
    tuesday: WeekDayEnum.WeekDay
    wednesday: WeekDayEnum.WeekDay
    thursday: WeekDayEnum.WeekDay
    friday: WeekDayEnum.WeekDay
    saturday: WeekDayEnum.WeekDay
    sunday: WeekDayEnum.WeekDay
    def __init__(self) -> None: ...

class OrdinalValueEnum(_message.Message):
    __slots__ = ()
    class OrdinalValue(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ORDINAL_VALUE_UNSPECIFIED: _ClassVar[OrdinalValueEnum.OrdinalValue]
        day: _ClassVar[OrdinalValueEnum.OrdinalValue]
        weekday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        weekend: _ClassVar[OrdinalValueEnum.OrdinalValue]
        sunday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        monday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        tuesday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        wednesday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        thursday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        friday: _ClassVar[OrdinalValueEnum.OrdinalValue]
        saturday: _ClassVar[OrdinalValueEnum.OrdinalValue]
    ORDINAL_VALUE_UNSPECIFIED: OrdinalValueEnum.OrdinalValue
    day: OrdinalValueEnum.OrdinalValue
    weekday: OrdinalValueEnum.OrdinalValue
    weekend: OrdinalValueEnum.OrdinalValue
    sunday: OrdinalValueEnum.OrdinalValue
    monday: OrdinalValueEnum.OrdinalValue
    tuesday: OrdinalValueEnum.OrdinalValue
    wednesday: OrdinalValueEnum.OrdinalValue
    thursday: OrdinalValueEnum.OrdinalValue
    friday: OrdinalValueEnum.OrdinalValue
    saturday: OrdinalValueEnum.OrdinalValue
    def __init__(self) -> None: ...

class MonthlyTypeEnum(_message.Message):
    __slots__ = ()
    class MonthlyType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MONTHLY_TYPE_UNSPECIFIED: _ClassVar[MonthlyTypeEnum.MonthlyType]
        each: _ClassVar[MonthlyTypeEnum.MonthlyType]
        on: _ClassVar[MonthlyTypeEnum.MonthlyType]
    MONTHLY_TYPE_UNSPECIFIED: MonthlyTypeEnum.MonthlyType
    each: MonthlyTypeEnum.MonthlyType
    on: MonthlyTypeEnum.MonthlyType
    def __init__(self) -> None: ...

class DigestTypeEnum(_message.Message):
    __slots__ = ()
    class DigestType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DIGEST_TYPE_UNSPECIFIED: _ClassVar[DigestTypeEnum.DigestType]
        regular: _ClassVar[DigestTypeEnum.DigestType]
        backoff: _ClassVar[DigestTypeEnum.DigestType]
        timed: _ClassVar[DigestTypeEnum.DigestType]
    DIGEST_TYPE_UNSPECIFIED: DigestTypeEnum.DigestType
    regular: DigestTypeEnum.DigestType
    backoff: DigestTypeEnum.DigestType
    timed: DigestTypeEnum.DigestType
    def __init__(self) -> None: ...

class OrderDirectionEnum(_message.Message):
    __slots__ = ()
    class OrderDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ORDER_DIRECTION_UNSPECIFIED: _ClassVar[OrderDirectionEnum.OrderDirection]
        ASC: _ClassVar[OrderDirectionEnum.OrderDirection]
        DESC: _ClassVar[OrderDirectionEnum.OrderDirection]
    ORDER_DIRECTION_UNSPECIFIED: OrderDirectionEnum.OrderDirection
    ASC: OrderDirectionEnum.OrderDirection
    DESC: OrderDirectionEnum.OrderDirection
    def __init__(self) -> None: ...

class ChannelFlags(_message.Message):
    __slots__ = ("email", "sms", "in_app", "chat", "push")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    SMS_FIELD_NUMBER: _ClassVar[int]
    IN_APP_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    PUSH_FIELD_NUMBER: _ClassVar[int]
    email: bool
    sms: bool
    in_app: bool
    chat: bool
    push: bool
    def __init__(self, email: _Optional[bool] = ..., sms: _Optional[bool] = ..., in_app: _Optional[bool] = ..., chat: _Optional[bool] = ..., push: _Optional[bool] = ...) -> None: ...

class BuilderFieldTypeEnum(_message.Message):
    __slots__ = ()
    class BuilderFieldType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        BUILDER_FIELD_TYPE_UNSPECIFIED: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        BOOLEAN: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        TEXT: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        DATE: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        NUMBER: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        STATEMENT: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        LIST: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        MULTI_LIST: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
        GROUP: _ClassVar[BuilderFieldTypeEnum.BuilderFieldType]
    BUILDER_FIELD_TYPE_UNSPECIFIED: BuilderFieldTypeEnum.BuilderFieldType
    BOOLEAN: BuilderFieldTypeEnum.BuilderFieldType
    TEXT: BuilderFieldTypeEnum.BuilderFieldType
    DATE: BuilderFieldTypeEnum.BuilderFieldType
    NUMBER: BuilderFieldTypeEnum.BuilderFieldType
    STATEMENT: BuilderFieldTypeEnum.BuilderFieldType
    LIST: BuilderFieldTypeEnum.BuilderFieldType
    MULTI_LIST: BuilderFieldTypeEnum.BuilderFieldType
    GROUP: BuilderFieldTypeEnum.BuilderFieldType
    def __init__(self) -> None: ...

class StepFilterValueEnum(_message.Message):
    __slots__ = ()
    class StepFilterValue(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STEP_FILTER_VALUE_UNSPECIFIED: _ClassVar[StepFilterValueEnum.StepFilterValue]
        AND: _ClassVar[StepFilterValueEnum.StepFilterValue]
        OR: _ClassVar[StepFilterValueEnum.StepFilterValue]
    STEP_FILTER_VALUE_UNSPECIFIED: StepFilterValueEnum.StepFilterValue
    AND: StepFilterValueEnum.StepFilterValue
    OR: StepFilterValueEnum.StepFilterValue
    def __init__(self) -> None: ...

class FieldFilterOperatorEnum(_message.Message):
    __slots__ = ()
    class FieldFilterOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        FIELD_FILTER_OPERATOR_UNSPECIFIED: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        LARGER: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        SMALLER: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        LARGER_EQUAL: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        SMALLER_EQUAL: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        EQUAL: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        NOT_EQUAL: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        ALL_IN: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        ANY_IN: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        NOT_IN: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        BETWEEN: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        NOT_BETWEEN: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        LIKE: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        NOT_LIKE: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
        IN: _ClassVar[FieldFilterOperatorEnum.FieldFilterOperator]
    FIELD_FILTER_OPERATOR_UNSPECIFIED: FieldFilterOperatorEnum.FieldFilterOperator
    LARGER: FieldFilterOperatorEnum.FieldFilterOperator
    SMALLER: FieldFilterOperatorEnum.FieldFilterOperator
    LARGER_EQUAL: FieldFilterOperatorEnum.FieldFilterOperator
    SMALLER_EQUAL: FieldFilterOperatorEnum.FieldFilterOperator
    EQUAL: FieldFilterOperatorEnum.FieldFilterOperator
    NOT_EQUAL: FieldFilterOperatorEnum.FieldFilterOperator
    ALL_IN: FieldFilterOperatorEnum.FieldFilterOperator
    ANY_IN: FieldFilterOperatorEnum.FieldFilterOperator
    NOT_IN: FieldFilterOperatorEnum.FieldFilterOperator
    BETWEEN: FieldFilterOperatorEnum.FieldFilterOperator
    NOT_BETWEEN: FieldFilterOperatorEnum.FieldFilterOperator
    LIKE: FieldFilterOperatorEnum.FieldFilterOperator
    NOT_LIKE: FieldFilterOperatorEnum.FieldFilterOperator
    IN: FieldFilterOperatorEnum.FieldFilterOperator
    def __init__(self) -> None: ...

class FieldFilterOnEnum(_message.Message):
    __slots__ = ()
    class FieldFilterOn(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        FIELD_FILTER_ON_UNSPECIFIED: _ClassVar[FieldFilterOnEnum.FieldFilterOn]
        subscriber: _ClassVar[FieldFilterOnEnum.FieldFilterOn]
        payload: _ClassVar[FieldFilterOnEnum.FieldFilterOn]
    FIELD_FILTER_ON_UNSPECIFIED: FieldFilterOnEnum.FieldFilterOn
    subscriber: FieldFilterOnEnum.FieldFilterOn
    payload: FieldFilterOnEnum.FieldFilterOn
    def __init__(self) -> None: ...

class StepFilter(_message.Message):
    __slots__ = ("is_negated", "type", "value", "children")
    IS_NEGATED_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    is_negated: bool
    type: BuilderFieldTypeEnum.BuilderFieldType
    value: StepFilterValueEnum.StepFilterValue
    children: _containers.RepeatedCompositeFieldContainer[FieldFilterPart]
    def __init__(self, is_negated: _Optional[bool] = ..., type: _Optional[_Union[BuilderFieldTypeEnum.BuilderFieldType, str]] = ..., value: _Optional[_Union[StepFilterValueEnum.StepFilterValue, str]] = ..., children: _Optional[_Iterable[_Union[FieldFilterPart, _Mapping]]] = ...) -> None: ...

class FieldFilterPart(_message.Message):
    __slots__ = ("field", "value", "operator", "on")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_FIELD_NUMBER: _ClassVar[int]
    field: str
    value: str
    operator: FieldFilterOperatorEnum.FieldFilterOperator
    on: FieldFilterOnEnum.FieldFilterOn
    def __init__(self, field: _Optional[str] = ..., value: _Optional[str] = ..., operator: _Optional[_Union[FieldFilterOperatorEnum.FieldFilterOperator, str]] = ..., on: _Optional[_Union[FieldFilterOnEnum.FieldFilterOn, str]] = ...) -> None: ...
