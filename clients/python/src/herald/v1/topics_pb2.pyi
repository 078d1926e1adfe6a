from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Topic(_message.Message):
    __slots__ = ("id", "organization_id", "environment_id", "key", "name", "subscribers")
    ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBERS_FIELD_NUMBER: _ClassVar[int]
    id: str
    organization_id: str
    environment_id: str
    key: str
    name: str
    subscribers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., organization_id: _Optional[str] = ..., environment_id: _Optional[str] = ..., key: _Optional[str] = ..., name: _Optional[str] = ..., subscribers: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateTopicRequest(_message.Message):
    __slots__ = ("key", "name")
    KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    key: str
    name: str
    def __init__(self, key: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class CreateTopicResponse(_message.Message):
    __slots__ = ("id", "key")
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    id: str
    key: str
    def __init__(self, id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class ListTopicsRequest(_message.Message):
    __slots__ = ("page", "page_size", "key")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    key: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., key: _Optional[str] = ...) -> None: ...

class ListTopicsResponse(_message.Message):
    __slots__ = ("data", "page", "page_size", "total_count")
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Topic]
    page: int
    page_size: int
    total_count: int
    def __init__(self, data: _Optional[_Iterable[_Union[Topic, _Mapping]]] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetTopicRequest(_message.Message):
    __slots__ = ("topic_key",)
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    def __init__(self, topic_key: _Optional[str] = ...) -> None: ...

class GetTopicResponse(_message.Message):
    __slots__ = ("topic",)
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    topic: Topic
    def __init__(self, topic: _Optional[_Union[Topic, _Mapping]] = ...) -> None: ...

class RenameTopicRequest(_message.Message):
    __slots__ = ("topic_key", "name")
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    name: str
    def __init__(self, topic_key: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class RenameTopicResponse(_message.Message):
    __slots__ = ("topic",)
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    topic: Topic
    def __init__(self, topic: _Optional[_Union[Topic, _Mapping]] = ...) -> None: ...

class DeleteTopicRequest(_message.Message):
    __slots__ = ("topic_key",)
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    def __init__(self, topic_key: _Optional[str] = ...) -> None: ...

class DeleteTopicResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AddTopicSubscribersRequest(_message.Message):
    __slots__ = ("topic_key", "subscribers")
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBERS_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    subscribers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, topic_key: _Optional[str] = ..., subscribers: _Optional[_Iterable[str]] = ...) -> None: ...

class AddTopicSubscribersResponse(_message.Message):
    __slots__ = ("succeeded", "failed")
    SUCCEEDED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    succeeded: _containers.RepeatedScalarFieldContainer[str]
    failed: TopicSubscribersFailure
    def __init__(self, succeeded: _Optional[_Iterable[str]] = ..., failed: _Optional[_Union[TopicSubscribersFailure, _Mapping]] = ...) -> None: ...

class TopicSubscribersFailure(_message.Message):
    __slots__ = ("not_found",)
    NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    not_found: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, not_found: _Optional[_Iterable[str]] = ...) -> None: ...

class RemoveTopicSubscribersRequest(_message.Message):
    __slots__ = ("topic_key", "subscribers")
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBERS_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    subscribers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, topic_key: _Optional[str] = ..., subscribers: _Optional[_Iterable[str]] = ...) -> None: ...

class RemoveTopicSubscribersResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetTopicSubscriberRequest(_message.Message):
    __slots__ = ("topic_key", "subscriber_id")
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    topic_key: str
    subscriber_id: str
    def __init__(self, topic_key: _Optional[str] = ..., subscriber_id: _Optional[str] = ...) -> None: ...

class GetTopicSubscriberResponse(_message.Message):
    __slots__ = ("topic_subscriber",)
    TOPIC_SUBSCRIBER_FIELD_NUMBER: _ClassVar[int]
    topic_subscriber: TopicSubscriber
    def __init__(self, topic_subscriber: _Optional[_Union[TopicSubscriber, _Mapping]] = ...) -> None: ...

class TopicSubscriber(_message.Message):
    __slots__ = ("organization_id", "environment_id", "subscriber_id", "topic_id", "topic_key", "external_subscriber_id")
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_KEY_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_SUBSCRIBER_ID_FIELD_NUMBER: _ClassVar[int]
    organization_id: str
    environment_id: str
    subscriber_id: str
    topic_id: str
    topic_key: str
    external_subscriber_id: str
    def __init__(self, organization_id: _Optional[str] = ..., environment_id: _Optional[str] = ..., subscriber_id: _Optional[str] = ..., topic_id: _Optional[str] = ..., topic_key: _Optional[str] = ..., external_subscriber_id: _Optional[str] = ...) -> None: ...
