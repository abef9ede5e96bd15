"""Signs what a developer's server signs for the app, with Apple's own App Store Server Library, for the
Swift tests of the team's keys (Tests/StoreEngineTests/TeamKeySignatureTests.swift).

stdin: {"keyPath", "keyId", "issuerId", "bundleId", "requests": [
          {"kind": "v2", "productId", "offerId", "transactionId"?}                   PromotionalOfferV2SignatureCreator
          {"kind": "legacy", "productId", "offerId", "applicationUsername", "timestamp"?} PromotionalOfferSignatureCreator
          {"kind": "intro", "productId", "allow", "transactionId"}                   IntroductoryOfferEligibilitySignatureCreator]}
stdout: {"signatures": [...]}: a compact JWS, or for "legacy" the JSON a server hands the app
        ({"keyIdentifier", "nonce", "timestamp", "signature"}).
"""
import json
import sys
import time
import uuid

from appstoreserverlibrary.jws_signature_creator import (IntroductoryOfferEligibilitySignatureCreator,
                                                         PromotionalOfferV2SignatureCreator)
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator


def main():
    request = json.load(sys.stdin)
    with open(request["keyPath"], "rb") as file:
        key = file.read()
    key_id, issuer, bundle = request["keyId"], request["issuerId"], request["bundleId"]
    signatures = []
    for r in request["requests"]:
        if r["kind"] == "v2":
            signatures.append(PromotionalOfferV2SignatureCreator(key, key_id, issuer, bundle)
                              .create_signature(r["productId"], r["offerId"], r.get("transactionId")))
        elif r["kind"] == "intro":
            signatures.append(IntroductoryOfferEligibilitySignatureCreator(key, key_id, issuer, bundle)
                              .create_signature(r["productId"], r["allow"], r["transactionId"]))
        else:
            nonce, timestamp = uuid.uuid4(), r.get("timestamp", int(time.time() * 1000))
            signature = PromotionalOfferSignatureCreator(key, key_id, bundle).create_signature(
                r["productId"], r["offerId"], r.get("applicationUsername", ""), nonce, timestamp)
            signatures.append(json.dumps({"keyIdentifier": key_id, "nonce": str(nonce), "timestamp": timestamp, "signature": signature}))
    json.dump({"signatures": signatures}, sys.stdout)


if __name__ == "__main__":
    main()
