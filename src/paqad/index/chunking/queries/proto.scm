; grammar: proto
; extensions: .proto
; manifests: buf.yaml buf.work.yaml
; bodies: message_body enum_body
; Definitions of Protocol Buffers: messages, enums, services and their rpcs.
(message (message_name (identifier) @name)) @definition.class
(enum (enum_name (identifier) @name)) @definition.type
(service (service_name (identifier) @name)) @definition.interface
(rpc (rpc_name (identifier) @name)) @definition.method
