"""Where invoice PDFs and exports live: an S3-compatible bucket, or a directory on local disk."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Protocol

from ledgerly.config import Settings

log = logging.getLogger(__name__)


class BlobStore(Protocol):
    def put(self, key: str, data: bytes, content_type: str) -> str: ...

    def get(self, key: str) -> bytes: ...

    def delete(self, key: str) -> None: ...

    def url_for(self, key: str, expires_in: int = 900) -> str: ...


def content_key(data: bytes, suffix: str) -> str:
    """Content-addressed key 'ab/cd/<sha256><suffix>': identical uploads share one object."""
    digest = hashlib.sha256(data).hexdigest()
    return f"{digest[:2]}/{digest[2:4]}/{digest}{suffix}"


class LocalBlobStore:
    """Files under ``root``; served by the API at ``<public_base_url>/blobs/<key>``."""

    def __init__(self, root: Path, public_base_url: str) -> None:
        self.root = root.resolve()
        self.public_base_url = public_base_url.rstrip("/")

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root):
            raise ValueError(f"blob key escapes the store: {key!r}")
        return path

    def put(self, key: str, data: bytes, content_type: str) -> str:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return key

    def get(self, key: str) -> bytes:
        return self._path(key).read_bytes()

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def url_for(self, key: str, expires_in: int = 900) -> str:
        return f"{self.public_base_url}/blobs/{key}"


class S3BlobStore:
    """Objects in one bucket under ``prefix``, encrypted at rest, shared through presigned URLs."""

    def __init__(self, bucket: str, prefix: str = "", client: object | None = None) -> None:
        if client is None:
            import boto3  # optional dependency (extra "s3"); only needed when a bucket is configured

            client = boto3.client("s3")
        self.client = client
        self.bucket = bucket
        self.prefix = prefix

    def put(self, key: str, data: bytes, content_type: str) -> str:
        self.client.put_object(
            Bucket=self.bucket, Key=self.prefix + key, Body=data, ContentType=content_type,
            ServerSideEncryption="AES256",
        )
        return key

    def get(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read()

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.prefix + key)

    def url_for(self, key: str, expires_in: int = 900) -> str:
        return self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": self.prefix + key}, ExpiresIn=expires_in
        )


def open_blob_store(settings: Settings) -> BlobStore:
    """S3 when ``blob.bucket`` is set and AWS credentials are present, else the directory ``blob.local_root``."""
    has_credentials = bool(os.environ.get("AWS_ACCESS_KEY_ID") or os.environ.get("AWS_PROFILE"))
    if settings.blob_bucket and has_credentials:
        return S3BlobStore(settings.blob_bucket, prefix=f"{settings.environment}/")
    if settings.blob_bucket:
        log.warning(
            "blob.bucket=%s is set but no AWS credentials were found; storing documents in %s",
            settings.blob_bucket, settings.blob_local_root,
        )
    return LocalBlobStore(Path(settings.blob_local_root), public_base_url=settings.public_url)
