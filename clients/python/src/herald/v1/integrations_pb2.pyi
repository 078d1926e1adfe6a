from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from herald.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Integration(_message.Message):
    __slots__ = ("id", "environment_id", "organization_id", "name", "identifier", "provider_id", "channel", "credentials", "configurations", "active", "deleted", "deleted_at", "deleted_by", "primary", "conditions")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATIONS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    DELETED_BY_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    environment_id: str
    organization_id: str
    name: str
    identifier: str
    provider_id: str
    channel: _common_pb2.ChannelTypeEnum.ChannelType
    credentials: IntegrationCredentials
    configurations: IntegrationConfigurations
    active: bool
    deleted: bool
    deleted_at: str
    deleted_by: str
    primary: bool
    conditions: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    def __init__(self, id: _Optional[str] = ..., environment_id: _Optional[str] = ..., organization_id: _Optional[str] = ..., name: _Optional[str] = ..., identifier: _Optional[str] = ..., provider_id: _Optional[str] = ..., channel: _Optional[_Union[_common_pb2.ChannelTypeEnum.ChannelType, str]] = ..., credentials: _Optional[_Union[IntegrationCredentials, _Mapping]] = ..., configurations: _Optional[_Union[IntegrationConfigurations, _Mapping]] = ..., active: _Optional[bool] = ..., deleted: _Optional[bool] = ..., deleted_at: _Optional[str] = ..., deleted_by: _Optional[str] = ..., primary: _Optional[bool] = ..., conditions: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ...) -> None: ...

class IntegrationCredentials(_message.Message):
    __slots__ = ("api_key", "user", "secret_key", "domain", "password", "host", "port", "secure", "region", "account_sid", "message_profile_id", "token", "from_address", "sender_name", "project_name", "application_id", "client_id", "require_tls", "ignore_tls", "tls_options", "base_url", "webhook_url", "redirect_url", "hmac", "service_account", "ip_pool_name", "api_key_request_header", "secret_key_request_header", "id_path", "date_path", "api_token", "authenticate_by_token", "authentication_token_key", "instance_id", "alert_uid", "title", "image_url", "state", "external_link", "channel_id", "phone_number_identification", "access_key", "app_sid", "sender_id", "inbox_creates_subscribers")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    SECURE_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_SID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_PROFILE_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    FROM_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SENDER_NAME_FIELD_NUMBER: _ClassVar[int]
    PROJECT_NAME_FIELD_NUMBER: _ClassVar[int]
    APPLICATION_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_TLS_FIELD_NUMBER: _ClassVar[int]
    IGNORE_TLS_FIELD_NUMBER: _ClassVar[int]
    TLS_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_URL_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URL_FIELD_NUMBER: _ClassVar[int]
    HMAC_FIELD_NUMBER: _ClassVar[int]
    SERVICE_ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    IP_POOL_NAME_FIELD_NUMBER: _ClassVar[int]
    API_KEY_REQUEST_HEADER_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_REQUEST_HEADER_FIELD_NUMBER: _ClassVar[int]
    ID_PATH_FIELD_NUMBER: _ClassVar[int]
    DATE_PATH_FIELD_NUMBER: _ClassVar[int]
    API_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AUTHENTICATE_BY_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AUTHENTICATION_TOKEN_KEY_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    ALERT_UID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_LINK_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_ID_FIELD_NUMBER: _ClassVar[int]
    PHONE_NUMBER_IDENTIFICATION_FIELD_NUMBER: _ClassVar[int]
    ACCESS_KEY_FIELD_NUMBER: _ClassVar[int]
    APP_SID_FIELD_NUMBER: _ClassVar[int]
    SENDER_ID_FIELD_NUMBER: _ClassVar[int]
    INBOX_CREATES_SUBSCRIBERS_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    user: str
    secret_key: str
    domain: str
    password: str
    host: str
    port: str
    secure: bool
    region: str
    account_sid: str
    message_profile_id: str
    token: str
    from_address: str
    sender_name: str
    project_name: str
    application_id: str
    client_id: str
    require_tls: bool
    ignore_tls: bool
    tls_options: _struct_pb2.Struct
    base_url: str
    webhook_url: str
    redirect_url: str
    hmac: bool
    service_account: str
    ip_pool_name: str
    api_key_request_header: str
    secret_key_request_header: str
    id_path: str
    date_path: str
    api_token: str
    authenticate_by_token: bool
    authentication_token_key: str
    instance_id: str
    alert_uid: str
    title: str
    image_url: str
    state: str
    external_link: str
    channel_id: str
    phone_number_identification: str
    access_key: str
    app_sid: str
    sender_id: str
    inbox_creates_subscribers: bool
    def __init__(self, api_key: _Optional[str] = ..., user: _Optional[str] = ..., secret_key: _Optional[str] = ..., domain: _Optional[str] = ..., password: _Optional[str] = ..., host: _Optional[str] = ..., port: _Optional[str] = ..., secure: _Optional[bool] = ..., region: _Optional[str] = ..., account_sid: _Optional[str] = ..., message_profile_id: _Optional[str] = ..., token: _Optional[str] = ..., from_address: _Optional[str] = ..., sender_name: _Optional[str] = ..., project_name: _Optional[str] = ..., application_id: _Optional[str] = ..., client_id: _Optional[str] = ..., require_tls: _Optional[bool] = ..., ignore_tls: _Optional[bool] = ..., tls_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., base_url: _Optional[str] = ..., webhook_url: _Optional[str] = ..., redirect_url: _Optional[str] = ..., hmac: _Optional[bool] = ..., service_account: _Optional[str] = ..., ip_pool_name: _Optional[str] = ..., api_key_request_header: _Optional[str] = ..., secret_key_request_header: _Optional[str] = ..., id_path: _Optional[str] = ..., date_path: _Optional[str] = ..., api_token: _Optional[str] = ..., authenticate_by_token: _Optional[bool] = ..., authentication_token_key: _Optional[str] = ..., instance_id: _Optional[str] = ..., alert_uid: _Optional[str] = ..., title: _Optional[str] = ..., image_url: _Optional[str] = ..., state: _Optional[str] = ..., external_link: _Optional[str] = ..., channel_id: _Optional[str] = ..., phone_number_identification: _Optional[str] = ..., access_key: _Optional[str] = ..., app_sid: _Optional[str] = ..., sender_id: _Optional[str] = ..., inbox_creates_subscribers: _Optional[bool] = ...) -> None: ...

class IntegrationConfigurations(_message.Message):
    __slots__ = ("inbound_webhook_enabled", "inbound_webhook_signing_key")
    INBOUND_WEBHOOK_ENABLED_FIELD_NUMBER: _ClassVar[int]
    INBOUND_WEBHOOK_SIGNING_KEY_FIELD_NUMBER: _ClassVar[int]
    inbound_webhook_enabled: bool
    inbound_webhook_signing_key: str
    def __init__(self, inbound_webhook_enabled: _Optional[bool] = ..., inbound_webhook_signing_key: _Optional[str] = ...) -> None: ...

class CreateIntegrationRequest(_message.Message):
    __slots__ = ("name", "identifier", "provider_id", "channel", "credentials", "active", "conditions", "configurations")
    NAME_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    identifier: str
    provider_id: str
    channel: _common_pb2.ChannelTypeEnum.ChannelType
    credentials: IntegrationCredentials
    active: bool
    conditions: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    configurations: IntegrationConfigurations
    def __init__(self, name: _Optional[str] = ..., identifier: _Optional[str] = ..., provider_id: _Optional[str] = ..., channel: _Optional[_Union[_common_pb2.ChannelTypeEnum.ChannelType, str]] = ..., credentials: _Optional[_Union[IntegrationCredentials, _Mapping]] = ..., active: _Optional[bool] = ..., conditions: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., configurations: _Optional[_Union[IntegrationConfigurations, _Mapping]] = ...) -> None: ...

class CreateIntegrationResponse(_message.Message):
    __slots__ = ("integration",)
    INTEGRATION_FIELD_NUMBER: _ClassVar[int]
    integration: Integration
    def __init__(self, integration: _Optional[_Union[Integration, _Mapping]] = ...) -> None: ...

class GetIntegrationRequest(_message.Message):
    __slots__ = ("integration_id",)
    INTEGRATION_ID_FIELD_NUMBER: _ClassVar[int]
    integration_id: str
    def __init__(self, integration_id: _Optional[str] = ...) -> None: ...

class GetIntegrationResponse(_message.Message):
    __slots__ = ("integration",)
    INTEGRATION_FIELD_NUMBER: _ClassVar[int]
    integration: Integration
    def __init__(self, integration: _Optional[_Union[Integration, _Mapping]] = ...) -> None: ...

class ListIntegrationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListIntegrationsResponse(_message.Message):
    __slots__ = ("integrations",)
    INTEGRATIONS_FIELD_NUMBER: _ClassVar[int]
    integrations: _containers.RepeatedCompositeFieldContainer[Integration]
    def __init__(self, integrations: _Optional[_Iterable[_Union[Integration, _Mapping]]] = ...) -> None: ...

class UpdateIntegrationRequest(_message.Message):
    __slots__ = ("integration_id", "name", "identifier", "active", "credentials", "conditions", "configurations", "update_mask")
    INTEGRATION_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATIONS_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    integration_id: str
    name: str
    identifier: str
    active: bool
    credentials: IntegrationCredentials
    conditions: _containers.RepeatedCompositeFieldContainer[_common_pb2.StepFilter]
    configurations: IntegrationConfigurations
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, integration_id: _Optional[str] = ..., name: _Optional[str] = ..., identifier: _Optional[str] = ..., active: _Optional[bool] = ..., credentials: _Optional[_Union[IntegrationCredentials, _Mapping]] = ..., conditions: _Optional[_Iterable[_Union[_common_pb2.StepFilter, _Mapping]]] = ..., configurations: _Optional[_Union[IntegrationConfigurations, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateIntegrationResponse(_message.Message):
    __slots__ = ("integration",)
    INTEGRATION_FIELD_NUMBER: _ClassVar[int]
    integration: Integration
    def __init__(self, integration: _Optional[_Union[Integration, _Mapping]] = ...) -> None: ...

class DeleteIntegrationRequest(_message.Message):
    __slots__ = ("integration_id",)
    INTEGRATION_ID_FIELD_NUMBER: _ClassVar[int]
    integration_id: str
    def __init__(self, integration_id: _Optional[str] = ...) -> None: ...

class DeleteIntegrationResponse(_message.Message):
    __slots__ = ("integrations",)
    INTEGRATIONS_FIELD_NUMBER: _ClassVar[int]
    integrations: _containers.RepeatedCompositeFieldContainer[Integration]
    def __init__(self, integrations: _Optional[_Iterable[_Union[Integration, _Mapping]]] = ...) -> None: ...

class SetIntegrationAsPrimaryRequest(_message.Message):
    __slots__ = ("integration_id",)
    INTEGRATION_ID_FIELD_NUMBER: _ClassVar[int]
    integration_id: str
    def __init__(self, integration_id: _Optional[str] = ...) -> None: ...

class SetIntegrationAsPrimaryResponse(_message.Message):
    __slots__ = ("integration",)
    INTEGRATION_FIELD_NUMBER: _ClassVar[int]
    integration: Integration
    def __init__(self, integration: _Optional[_Union[Integration, _Mapping]] = ...) -> None: ...

class ListActiveIntegrationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListActiveIntegrationsResponse(_message.Message):
    __slots__ = ("integrations",)
    INTEGRATIONS_FIELD_NUMBER: _ClassVar[int]
    integrations: _containers.RepeatedCompositeFieldContainer[Integration]
    def __init__(self, integrations: _Optional[_Iterable[_Union[Integration, _Mapping]]] = ...) -> None: ...
