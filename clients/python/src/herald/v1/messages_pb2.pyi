from google.protobuf import struct_pb2 as _struct_pb2
from herald.v1 import common_pb2 as _common_pb2
from herald.v1 import subscribers_pb2 as _subscribers_pb2
from herald.v1 import workflows_pb2 as _workflows_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MessageStatusEnum(_message.Message):
    __slots__ = ()
    class MessageStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MESSAGE_STATUS_UNSPECIFIED: _ClassVar[MessageStatusEnum.MessageStatus]
        sent: _ClassVar[MessageStatusEnum.MessageStatus]
        error: _ClassVar[MessageStatusEnum.MessageStatus]
        warning: _ClassVar[MessageStatusEnum.MessageStatus]
    MESSAGE_STATUS_UNSPECIFIED: MessageStatusEnum.MessageStatus
    sent: MessageStatusEnum.MessageStatus
    error: MessageStatusEnum.MessageStatus
    warning: MessageStatusEnum.MessageStatus
    def __init__(self) -> None: ...

class Message(_message.Message):
    __slots__ = ("id", "template_id", "message_template_id", "environment_id", "organization_id", "notification_id", "subscriber_id", "subscriber", "template", "template_identifier", "created_at", "delivered_at", "last_seen_date", "last_read_date", "content", "transaction_id", "subject", "channel", "read", "seen", "snoozed_until", "email", "phone", "direct_webhook_url", "provider_id", "device_tokens", "title", "cta", "feed_id", "status", "error_id", "error_text", "payload", "overrides", "context_keys")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_DATE_FIELD_NUMBER: _ClassVar[int]
    LAST_READ_DATE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    SEEN_FIELD_NUMBER: _ClassVar[int]
    SNOOZED_UNTIL_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    DIRECT_WEBHOOK_URL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CTA_FIELD_NUMBER: _ClassVar[int]
    FEED_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_TEXT_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_KEYS_FIELD_NUMBER: _ClassVar[int]
    id: str
    template_id: str
    message_template_id: str
    environment_id: str
    organization_id: str
    notification_id: str
    subscriber_id: str
    subscriber: _subscribers_pb2.Subscriber
    template: _workflows_pb2.NotificationTemplate
    template_identifier: str
    created_at: str
    delivered_at: _containers.RepeatedScalarFieldContainer[str]
    last_seen_date: str
    last_read_date: str
    content: _struct_pb2.Value
    transaction_id: str
    subject: str
    channel: _common_pb2.ChannelTypeEnum.ChannelType
    read: bool
    seen: bool
    snoozed_until: str
    email: str
    phone: str
    direct_webhook_url: str
    provider_id: str
    device_tokens: _containers.RepeatedScalarFieldContainer[str]
    title: str
    cta: MessageCta
    feed_id: str
    status: MessageStatusEnum.MessageStatus
    error_id: str
    error_text: str
    payload: _struct_pb2.Struct
    overrides: _struct_pb2.Struct
    context_keys: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., template_id: _Optional[str] = ..., message_template_id: _Optional[str] = ..., environment_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., notification_id: _Optional[str] = ..., subscriber_id: _Optional[str] = ..., subscriber: _Optional[_Union[_subscribers_pb2.Subscriber, _Mapping]] = ..., template: _Optional[_Union[_workflows_pb2.NotificationTemplate, _Mapping]] = ..., template_identifier: _Optional[str] = ..., created_at: _Optional[str] = ..., delivered_at: _Optional[_Iterable[str]] = ..., last_seen_date: _Optional[str] = ..., last_read_date: _Optional[str] = ..., content: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., transaction_id: _Optional[str] = ..., subject: _Optional[str] = ..., channel: _Optional[_Union[_common_pb2.ChannelTypeEnum.ChannelType, str]] = ..., read: _Optional[bool] = ..., seen: _Optional[bool] = ..., snoozed_until: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., direct_webhook_url: _Optional[str] = ..., provider_id: _Optional[str] = ..., device_tokens: _Optional[_Iterable[str]] = ..., title: _Optional[str] = ..., cta: _Optional[_Union[MessageCta, _Mapping]] = ..., feed_id: _Optional[str] = ..., status: _Optional[_Union[MessageStatusEnum.MessageStatus, str]] = ..., error_id: _Optional[str] = ..., error_text: _Optional[str] = ..., payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., overrides: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., context_keys: _Optional[_Iterable[str]] = ...) -> None: ...

class EmailBlockTypeEnum(_message.Message):
    __slots__ = ()
    class EmailBlockType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        EMAIL_BLOCK_TYPE_UNSPECIFIED: _ClassVar[EmailBlockTypeEnum.EmailBlockType]
        button: _ClassVar[EmailBlockTypeEnum.EmailBlockType]
        text: _ClassVar[EmailBlockTypeEnum.EmailBlockType]
    EMAIL_BLOCK_TYPE_UNSPECIFIED: EmailBlockTypeEnum.EmailBlockType
    button: EmailBlockTypeEnum.EmailBlockType
    text: EmailBlockTypeEnum.EmailBlockType
    def __init__(self) -> None: ...

class TextAlignEnum(_message.Message):
    __slots__ = ()
    class TextAlign(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TEXT_ALIGN_UNSPECIFIED: _ClassVar[TextAlignEnum.TextAlign]
        center: _ClassVar[TextAlignEnum.TextAlign]
        left: _ClassVar[TextAlignEnum.TextAlign]
        right: _ClassVar[TextAlignEnum.TextAlign]
    TEXT_ALIGN_UNSPECIFIED: TextAlignEnum.TextAlign
    center: TextAlignEnum.TextAlign
    left: TextAlignEnum.TextAlign
    right: TextAlignEnum.TextAlign
    def __init__(self) -> None: ...

class EmailBlock(_message.Message):
    __slots__ = ("type", "content", "url", "styles")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    STYLES_FIELD_NUMBER: _ClassVar[int]
    type: EmailBlockTypeEnum.EmailBlockType
    content: str
    url: str
    styles: EmailBlockStyles
    def __init__(self, type: _Optional[_Union[EmailBlockTypeEnum.EmailBlockType, str]] = ..., content: _Optional[str] = ..., url: _Optional[str] = ..., styles: _Optional[_Union[EmailBlockStyles, _Mapping]] = ...) -> None: ...

class EmailBlockStyles(_message.Message):
    __slots__ = ("text_align",)
    TEXT_ALIGN_FIELD_NUMBER: _ClassVar[int]
    text_align: TextAlignEnum.TextAlign
    def __init__(self, text_align: _Optional[_Union[TextAlignEnum.TextAlign, str]] = ...) -> None: ...

class ChannelCtaTypeEnum(_message.Message):
    __slots__ = ()
    class ChannelCtaType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CHANNEL_CTA_TYPE_UNSPECIFIED: _ClassVar[ChannelCtaTypeEnum.ChannelCtaType]
        redirect: _ClassVar[ChannelCtaTypeEnum.ChannelCtaType]
    CHANNEL_CTA_TYPE_UNSPECIFIED: ChannelCtaTypeEnum.ChannelCtaType
    redirect: ChannelCtaTypeEnum.ChannelCtaType
    def __init__(self) -> None: ...

class MessageActionStatusEnum(_message.Message):
    __slots__ = ()
    class MessageActionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MESSAGE_ACTION_STATUS_UNSPECIFIED: _ClassVar[MessageActionStatusEnum.MessageActionStatus]
        pending: _ClassVar[MessageActionStatusEnum.MessageActionStatus]
        done: _ClassVar[MessageActionStatusEnum.MessageActionStatus]
    MESSAGE_ACTION_STATUS_UNSPECIFIED: MessageActionStatusEnum.MessageActionStatus
    pending: MessageActionStatusEnum.MessageActionStatus
    done: MessageActionStatusEnum.MessageActionStatus
    def __init__(self) -> None: ...

class ButtonTypeEnum(_message.Message):
    __slots__ = ()
    class ButtonType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        BUTTON_TYPE_UNSPECIFIED: _ClassVar[ButtonTypeEnum.ButtonType]
        primary: _ClassVar[ButtonTypeEnum.ButtonType]
        secondary: _ClassVar[ButtonTypeEnum.ButtonType]
    BUTTON_TYPE_UNSPECIFIED: ButtonTypeEnum.ButtonType
    primary: ButtonTypeEnum.ButtonType
    secondary: ButtonTypeEnum.ButtonType
    def __init__(self) -> None: ...

class MessageCta(_message.Message):
    __slots__ = ("type", "data", "action")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    type: ChannelCtaTypeEnum.ChannelCtaType
    data: MessageCtaData
    action: MessageAction
    def __init__(self, type: _Optional[_Union[ChannelCtaTypeEnum.ChannelCtaType, str]] = ..., data: _Optional[_Union[MessageCtaData, _Mapping]] = ..., action: _Optional[_Union[MessageAction, _Mapping]] = ...) -> None: ...

class MessageCtaData(_message.Message):
    __slots__ = ("url",)
    URL_FIELD_NUMBER: _ClassVar[int]
    url: str
    def __init__(self, url: _Optional[str] = ...) -> None: ...

class MessageAction(_message.Message):
    __slots__ = ("status", "buttons", "result")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    status: MessageActionStatusEnum.MessageActionStatus
    buttons: _containers.RepeatedCompositeFieldContainer[MessageButton]
    result: MessageActionResult
    def __init__(self, status: _Optional[_Union[MessageActionStatusEnum.MessageActionStatus, str]] = ..., buttons: _Optional[_Iterable[_Union[MessageButton, _Mapping]]] = ..., result: _Optional[_Union[MessageActionResult, _Mapping]] = ...) -> None: ...

class MessageButton(_message.Message):
    __slots__ = ("type", "content", "result_content")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    RESULT_CONTENT_FIELD_NUMBER: _ClassVar[int]
    type: ButtonTypeEnum.ButtonType
    content: str
    result_content: str
    def __init__(self, type: _Optional[_Union[ButtonTypeEnum.ButtonType, str]] = ..., content: _Optional[str] = ..., result_content: _Optional[str] = ...) -> None: ...

class MessageActionResult(_message.Message):
    __slots__ = ("payload", "type")
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    payload: _struct_pb2.Struct
    type: ButtonTypeEnum.ButtonType
    def __init__(self, payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., type: _Optional[_Union[ButtonTypeEnum.ButtonType, str]] = ...) -> None: ...

class ListMessagesRequest(_message.Message):
    __slots__ = ("channel", "subscriber_id", "transaction_id", "page", "limit")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    channel: _common_pb2.ChannelTypeEnum.ChannelType
    subscriber_id: str
    transaction_id: _containers.RepeatedScalarFieldContainer[str]
    page: int
    limit: int
    def __init__(self, channel: _Optional[_Union[_common_pb2.ChannelTypeEnum.ChannelType, str]] = ..., subscriber_id: _Optional[str] = ..., transaction_id: _Optional[_Iterable[str]] = ..., page: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class ListMessagesResponse(_message.Message):
    __slots__ = ("total_count", "has_more", "data", "page_size", "page")
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    total_count: int
    has_more: bool
    data: _containers.RepeatedCompositeFieldContainer[Message]
    page_size: int
    page: int
    def __init__(self, total_count: _Optional[int] = ..., has_more: _Optional[bool] = ..., data: _Optional[_Iterable[_Union[Message, _Mapping]]] = ..., page_size: _Optional[int] = ..., page: _Optional[int] = ...) -> None: ...

class MarkAsEnum(_message.Message):
    __slots__ = ()
    class MarkAs(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MARK_AS_UNSPECIFIED: _ClassVar[MarkAsEnum.MarkAs]
        read: _ClassVar[MarkAsEnum.MarkAs]
        seen: _ClassVar[MarkAsEnum.MarkAs]
        unread: _ClassVar[MarkAsEnum.MarkAs]
        unseen: _ClassVar[MarkAsEnum.MarkAs]
    MARK_AS_UNSPECIFIED: MarkAsEnum.MarkAs
    read: MarkAsEnum.MarkAs
    seen: MarkAsEnum.MarkAs
    unread: MarkAsEnum.MarkAs
    unseen: MarkAsEnum.MarkAs
    def __init__(self) -> None: ...

class MarkMessagesAsRequest(_message.Message):
    __slots__ = ("subscriber_id", "message_id", "mark_as")
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    MARK_AS_FIELD_NUMBER: _ClassVar[int]
    subscriber_id: str
    message_id: _containers.RepeatedScalarFieldContainer[str]
    mark_as: MarkAsEnum.MarkAs
    def __init__(self, subscriber_id: _Optional[str] = ..., message_id: _Optional[_Iterable[str]] = ..., mark_as: _Optional[_Union[MarkAsEnum.MarkAs, str]] = ...) -> None: ...

class MarkMessagesAsResponse(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[Message]
    def __init__(self, messages: _Optional[_Iterable[_Union[Message, _Mapping]]] = ...) -> None: ...
