"""Runs Apple's App Store Server Library's API client (app-store-server-library, PyPI) for the Swift
test suite (Tests/StoreServerTests/APIClientTests.swift).

argv: "token" or "call".
stdin: {"keyPath": .p8 file, "keyId", "issuerId", "bundleId", "baseUrl": for "call"}
stdout: "token": {"token": the bearer token the client would send}
        "call":  {"status": 200, "signedTransactionInfo": ...} after client.get_transaction_info("1"),
                 or {"status": the APIException's http_status_code, "apiError": its raw error code}
"""
import json
import sys

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment


def main():
    mode = sys.argv[1]
    request = json.load(sys.stdin)
    with open(request["keyPath"], "rb") as file:
        key = file.read()
    client = AppStoreServerAPIClient(key, request["keyId"], request["issuerId"], request["bundleId"], Environment.SANDBOX)
    if mode == "token":
        print(json.dumps({"token": client._generate_token()}))
        return
    client._base_url = request["baseUrl"]
    try:
        response = client.get_transaction_info("1")
        print(json.dumps({"status": 200, "signedTransactionInfo": response.signedTransactionInfo}))
    except APIException as error:
        print(json.dumps({"status": error.http_status_code, "apiError": error.raw_api_error}))


if __name__ == "__main__":
    main()
